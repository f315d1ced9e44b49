// RawKernel: NVRTC compilation to PTX (works without a GPU: CI's CUDA build runs it), the compile
// log on errors, the in-memory and on-disk caches, C++ name expressions, argument checks, and
// launches checked against the CPU: on a GPU, and on simulated devices, where the same source is
// compiled by the host compiler (shared memory, barriers, shuffles, atomics, streams, devices,
// autograd with custom forward and backward kernels).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "ember/autograd_function.h"
#include "ember/cuda.h"
#include "ember/cuda_kernel.h"
#include "ember/ops.h"
#include "support/cuda_skip.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

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
    tmp_.emplace("ember_kernels");
    dir_ = tmp_->path();
    setenv("EMBER_KERNEL_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("EMBER_KERNEL_CACHE_DIR");
    tmp_.reset();
  }
  std::optional<ember::testing::TempDir> tmp_;
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
  EMBER_SKIP_WITHOUT_CUDA();
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
  EMBER_SKIP_WITHOUT_CUDA();
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

// A block reduction: dynamic shared memory, barriers, warp shuffles and an atomic per block.
const char* kBlockSum = R"(
extern "C" __global__ void block_sum(const float* x, float* total, int n) {
  extern __shared__ float partial[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s >= 32; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x < 32) {
    float v = partial[threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x == 0) atomicAdd(total, v);
  }
})";

TEST_F(RawKernels, SharedMemoryBarriersShufflesAndAtomicsRun) {
  EMBER_SKIP_WITHOUT_CUDA();
  const int n = 1000, threads = 128;
  Tensor x = rand({n});
  Tensor total = zeros({1}, TensorOptions().device("cuda:0"));
  RawKernel sum(kBlockSum, "block_sum");
  sum({(n + threads - 1) / threads}, {threads}, {x.cuda(), total, int32_t(n)},
      threads * sizeof(float));
  EXPECT_NEAR(total.cpu().item<float>(), x.sum().item<float>(), 1e-3);
}

TEST_F(RawKernels, RunOnTheCurrentDeviceAndStream) {
  EMBER_SKIP_WITHOUT_CUDA_DEVICES(2);
  RawKernel add(kAdd, "add");
  const int n = 300;
  Tensor a = randn({n}), b = randn({n});
  {
    cuda::DeviceGuard on_1(1);
    Tensor y = empty({n}, TensorOptions().device("cuda:1"));
    cuda::Stream side = cuda::getStreamFromPool(false, 1);
    {
      cuda::StreamGuard on_side(side);
      add({(n + 63) / 64}, {64}, {a.to("cuda:1"), b.to("cuda:1"), y, int32_t(n)});
    }
    side.synchronize();
    EXPECT_TRUE(allclose(y.cpu(), a + b));
    // A tensor on cuda:0 while cuda:1 is current is named, as on a GPU.
    Tensor on_0 = a.to("cuda:0");
    const std::string m = testing::error_of<DeviceError>([&] {
      add({5}, {64}, {on_0, on_0, y, int32_t(n)});
    });
    EXPECT_TRUE(testing::contains(m,
                                  "argument 0 is a tensor on cuda:0 but the kernel runs on "
                                  "cuda:1"))
        << m;
  }
}

TEST_F(RawKernels, SimulatorNamesCompileErrorsAndArgumentMismatches) {
  if (!cuda::is_simulated()) GTEST_SKIP() << "the simulator's host compilation";
  RawKernel bad(R"(extern "C" __global__ void broken(float* y) {
  y[0] = undeclared_name;
})",
                "broken");
  Tensor y = zeros({4}, TensorOptions().device("cuda:0"));
  const std::string m = testing::error_of([&] { bad({1}, {1}, {y}); });
  EXPECT_TRUE(testing::contains(m, "RawKernel 'broken': compiling failed")) << m;
  EXPECT_TRUE(testing::contains(m, "broken.cu:2")) << m;  // the line in the kernel's source
  EXPECT_TRUE(testing::contains(m, "undeclared_name")) << m;

  RawKernel add(kAdd, "add");
  const std::string count = testing::error_of<ValueError>([&] { add({1}, {4}, {y, y, y}); });
  EXPECT_TRUE(testing::contains(count, "RawKernel 'add' takes 4 arguments, got 3")) << count;
  const std::string size = testing::error_of<TypeError>([&] {
    add({1}, {4}, {y, y, y, int64_t(4)});
  });
  EXPECT_TRUE(testing::contains(size, "argument 3 has 8 bytes but the kernel's parameter 3 has 4"))
      << size;
  // A launch the hardware would refuse is refused with CUDA's error.
  const std::string config = testing::error_of([&] { add({1}, {2048}, {y, y, y, int32_t(4)}); });
  EXPECT_TRUE(testing::contains(config, "invalid configuration")) << config;
}

TEST_F(RawKernels, SimulatorCompilesOncePerSourceAndOptions) {
  if (!cuda::is_simulated()) GTEST_SKIP() << "the simulator's host compilation";
  Tensor a = ones({4}, TensorOptions().device("cuda:0")), y = empty_like(a);
  const int64_t before = RawKernel::compilations();
  RawKernel add(kAdd, "add");
  add({1}, {4}, {a, a, y, int32_t(4)});
  add({1}, {4}, {y, a, y, int32_t(4)});
  EXPECT_EQ(RawKernel::compilations(), before + 1);
  RawKernel again(kAdd, "add");  // a new object finds the library on disk
  again({1}, {4}, {y, a, y, int32_t(4)});
  EXPECT_EQ(RawKernel::compilations(), before + 1);
  EXPECT_TRUE(y.cpu().equal(full({4}, 4.0f)));  // 1 + 1, then + 1 twice
  RawKernel with_macro(R"(extern "C" __global__ void fill(float* y) { y[threadIdx.x] = VALUE; })",
                       "fill", {{"-DVALUE=7.5f", "--use_fast_math"}});
  with_macro({1}, {4}, {y});
  EXPECT_EQ(RawKernel::compilations(), before + 2);
  EXPECT_TRUE(y.cpu().equal(full({4}, 7.5f)));
  for (const auto& e : fs::recursive_directory_iterator(dir_)) {
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << "temporary file left";
  }
}

// docs/extending.md's example: a custom op whose forward and backward are RawKernels.
const char* kCubeKernels = R"(
extern "C" __global__ void cube_forward(const double* x, double* y, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i] * x[i];
}
extern "C" __global__ void cube_backward(const double* x, const double* g, double* gx,
                                         long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) gx[i] = 3.0 * x[i] * x[i] * g[i];
})";

struct CubeOnGpu : autograd::Function<CubeOnGpu> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x) {
    static RawKernel fwd(kCubeKernels, "cube_forward");
    Tensor xc = x.contiguous(), y = empty_like(xc);
    const int64_t n = xc.numel();
    fwd({static_cast<unsigned>((n + 127) / 128)}, {128}, {xc, y, n});
    ctx->save_for_backward({xc});
    return y;
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx,
                                          autograd::variable_list g) {
    static RawKernel bwd(kCubeKernels, "cube_backward");
    Tensor x = ctx->get_saved_variables()[0], gc = g[0].contiguous(), gx = empty_like(x);
    const int64_t n = x.numel();
    bwd({static_cast<unsigned>((n + 127) / 128)}, {128}, {x, gc, gx, n});
    return {gx};
  }
};

TEST_F(RawKernels, CustomForwardAndBackwardKernelsPassFiniteDifferences) {
  EMBER_SKIP_WITHOUT_CUDA();
  testing::expect_gradients_match_finite_differences(
      [](const std::vector<Tensor>& in) { return CubeOnGpu::apply(in[0]); }, {randn({3, 5})},
      Device(kCUDA, 0), "cube via RawKernel");
}

}  // namespace
}  // namespace ember
