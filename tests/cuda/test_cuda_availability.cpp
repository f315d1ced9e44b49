// What ember::cuda says about itself. Runs everywhere: without a GPU it checks that the reason is
// given (built without CUDA, no driver, or no device) and that asking for CUDA fails with it;
// with a GPU it checks the runtime queries.
#include <gtest/gtest.h>

#include "ember/cuda.h"
#include "ember/ops.h"
#include "support/cuda_skip.h"

namespace ember {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(CudaAvailability, UnavailableSaysWhy) {
  if (cuda::is_available()) GTEST_SKIP() << "a CUDA device is present: nothing to explain";
  EXPECT_EQ(cuda::device_count(), 0);
  const std::string why = cuda::unavailable_reason();
  // One of the three causes, named.
  EXPECT_TRUE(contains(why, "built without CUDA") || contains(why, "driver") ||
              contains(why, "no CUDA device") || contains(why, "failed to initialise"))
      << why;
  try {
    zeros({2, 3}, TensorOptions().device(Device("cuda")));
    FAIL() << "a CUDA tensor was created without CUDA";
  } catch (const DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), why)) << e.what();
  }
  EXPECT_THROW(cuda::check_device(Device("cuda:0")), DeviceError);
  EXPECT_NO_THROW(cuda::check_device(Device("cpu")));
  EXPECT_THROW(cuda::current_device(), DeviceError);
  EXPECT_THROW(cuda::synchronize(), DeviceError);
  EXPECT_THROW(ones({2}).pin_memory(), DeviceError);
  // Statistics read as zero and empty_cache is harmless, as in PyTorch without CUDA.
  EXPECT_EQ(cuda::memory_allocated(), 0u);
  EXPECT_NO_THROW(cuda::empty_cache());
  // Events are created lazily: constructing and querying one needs no device.
  cuda::Event ev;
  EXPECT_TRUE(ev.query());
  // The process goes on after these errors.
  EXPECT_EQ(ones({2}).sum().item<float>(), 2.0f);
}

TEST(CudaAvailability, CpuOnlyBuildNamesTheBuild) {
  if (cuda::is_available()) GTEST_SKIP() << "a CUDA device is present";
  const std::string why = cuda::unavailable_reason();
  if (!contains(why, "built without CUDA")) {
    GTEST_SKIP() << "this build has CUDA; the runtime reports: " << why;
  }
  EXPECT_TRUE(contains(why, "-DEMBER_CUDA=ON")) << why;
}

TEST(CudaAvailability, CudaBuildWithoutDriverOrDeviceSaysWhich) {
  if (cuda::is_available()) GTEST_SKIP() << "a CUDA device is present";
  const std::string why = cuda::unavailable_reason();
  if (contains(why, "built without CUDA")) GTEST_SKIP() << "CPU-only build: " << why;
  EXPECT_TRUE(contains(why, "no NVIDIA driver") || contains(why, "no CUDA device") ||
              contains(why, "failed to initialise"))
      << why;
}

TEST(CudaAvailability, RuntimeQueriesOnAGpu) {
  EMBER_SKIP_WITHOUT_CUDA();
  EXPECT_TRUE(cuda::unavailable_reason().empty());
  const int n = cuda::device_count();
  ASSERT_GT(n, 0);
  auto props = cuda::get_device_properties(0);
  EXPECT_FALSE(props.name.empty());
  EXPECT_EQ(cuda::get_device_name(0), props.name);
  EXPECT_GT(props.total_memory, 0u);
  EXPECT_GT(props.multi_processor_count, 0);
  EXPECT_GE(props.major, 5);
  auto [free, total] = cuda::mem_get_info(0);
  EXPECT_LE(free, total);
  EXPECT_EQ(total, props.total_memory);
  cuda::set_device(0);
  EXPECT_EQ(cuda::current_device(), 0);
  cuda::synchronize();
  // An ordinal out of range names the device and how many exist.
  try {
    cuda::check_device(Device(kCUDA, static_cast<DeviceIndex>(n)));
    FAIL() << "no error for an ordinal out of range";
  } catch (const DeviceError& e) {
    const std::string m = e.what();
    EXPECT_TRUE(contains(m, "cuda:" + std::to_string(n))) << m;
    EXPECT_TRUE(contains(m, "has " + std::to_string(n) + " CUDA device")) << m;
  }
  EXPECT_THROW(cuda::set_device(n), DeviceError);
  EXPECT_THROW(zeros({1}, TensorOptions().device(Device(kCUDA, static_cast<DeviceIndex>(n)))),
               DeviceError);
}

}  // namespace
}  // namespace ember
