// RawKernel: NVRTC compilation to PTX (works without a GPU: CI's CUDA build runs it), the compile
// log on errors, the in-memory and on-disk caches, C++ name expressions, argument checks, and
// launches checked against the CPU on a real GPU (the simulator runs no PTX and says so).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "ember/cuda.h"
#include "ember/cuda_kernel.h"
#include "ember/ops.h"

namespace ember {
namespace {

namespace fs = std::filesystem;
using cuda::RawKernel;

const char* kAdd = R"(
extern "C" __global__ void add(const float* a, const float* b, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a[i] + b[i];
})";

const char* kScale = R"(
template <typename T>
__global__ void scale(T* y, T factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= factor;
})";

// NVRTC is there only in a real CUDA build (with or without a GPU); the simulator and CPU-only
// builds say why not.
bool nvrtc_available() {
  return !cuda::is_simulated() &&
         cuda::unavailable_reason().find("built without") == std::string::npos;
}

class RawKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ember_kernels_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    setenv("EMBER_KERNEL_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("EMBER_KERNEL_CACHE_DIR");
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(RawKernels, CompilesToPtxForAnArchitectureAndCachesOnDisk) {
  RawKernel add(kAdd, "add");
  if (cuda::is_simulated()) {
    try {
      (void)add.ptx(90);
      FAIL() << "the simulator compiled PTX";
    } catch (const NotImplementedError& e) {
      EXPECT_NE(std::string(e.what()).find("simulated CUDA devices"), std::string::npos);
    }
    return;
  }
  if (!nvrtc_available()) {  // a CPU-only build
    EXPECT_THROW((void)add.ptx(90), DeviceError);
    return;
  }
  const int64_t before = RawKernel::compilations();
  const std::string ptx = add.ptx(90);
  EXPECT_NE(ptx.find(".entry add"), std::string::npos) << ptx.substr(0, 400);
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
  EXPECT_EQ(RawKernel::compilations(), before + 1);
  EXPECT_EQ(add.ptx(90), ptx);  // memory cache
  EXPECT_EQ(RawKernel::compilations(), before + 1);
  // A new kernel object with the same source finds it on disk.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) files += e.path().extension() == ".ptx";
  EXPECT_EQ(files, 1);
  RawKernel again(kAdd, "add");
  EXPECT_EQ(again.ptx(90), ptx);
  EXPECT_EQ(RawKernel::compilations(), before + 1);
  // Other options or another architecture are other entries.
  RawKernel fast(kAdd, "add", {{"--use_fast_math"}});
  (void)fast.ptx(90);
  (void)add.ptx(80);
  EXPECT_EQ(RawKernel::compilations(), before + 3);
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << "temporary file left";
  }
}

TEST_F(RawKernels, CppNameExpressionsAreLowered) {
  if (!nvrtc_available()) GTEST_SKIP() << "NVRTC needs a real CUDA build";
  RawKernel scale(kScale, "scale<float>", {{"-std=c++17"}});
  const std::string ptx = scale.ptx(90);
  EXPECT_NE(ptx.find(".entry _Z5scaleIfEvPT_S0_i"), std::string::npos) << ptx.substr(0, 600);
}

TEST_F(RawKernels, CompileErrorsShowNvrtcsLogWithLines) {
  if (!nvrtc_available()) GTEST_SKIP() << "NVRTC needs a real CUDA build";
  RawKernel bad(R"(extern "C" __global__ void broken(float* y) {
  y[0] = undeclared_name;
})",
                "broken");
  try {
    (void)bad.ptx(90);
    FAIL() << "compiled broken code";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("RawKernel 'broken': compilation for sm_90 failed"), std::string::npos) << m;
    EXPECT_NE(m.find("broken.cu(2)"), std::string::npos) << m;  // the line of the error
    EXPECT_NE(m.find("undeclared_name"), std::string::npos) << m;
  }
  EXPECT_THROW(RawKernel("", ""), ValueError);
  EXPECT_THROW((void)RawKernel(kAdd, "add").ptx(3), ValueError);
}

TEST_F(RawKernels, ArgumentsAreCheckedBeforeAnyLaunch) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device: " << cuda::unavailable_reason();
  RawKernel add(kAdd, "add");
  Tensor a = ones({8}, TensorOptions().device("cuda:0"));
  Tensor host = ones({8});
  try {
    add({1}, {8}, {a, host, a, int32_t(8)});
    FAIL();
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 1 is a tensor on cpu"), std::string::npos)
        << e.what();
  }
  Tensor strided = ones({8, 2}, TensorOptions().device("cuda:0")).t();
  try {
    add({1}, {8}, {a, strided, a, int32_t(8)});
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 1 is a non-contiguous tensor"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(RawKernels, LaunchesMatchTheCpu) {
  if (!cuda::is_available() || cuda::is_simulated())
    GTEST_SKIP() << "launching PTX needs a real GPU";
  const int n = 1000;
  Tensor a = randn({n}), b = randn({n});
  Tensor y = empty({n}, TensorOptions().device("cuda"));
  RawKernel add(kAdd, "add");
  add({(n + 255) / 256}, {256}, {a.cuda(), b.cuda(), y, int32_t(n)});
  EXPECT_TRUE(allclose(y.cpu(), a + b));
  RawKernel scale(kScale, "scale<float>", {{"-std=c++17"}});
  scale({(n + 127) / 128}, {128}, {y, 2.0f, int32_t(n)});
  EXPECT_TRUE(allclose(y.cpu(), (a + b) * 2));
}

}  // namespace
}  // namespace ember
