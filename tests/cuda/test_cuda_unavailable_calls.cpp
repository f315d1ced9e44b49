// Stream, event and guard calls made without a usable CUDA device name the call the user made
// ("getStreamFromPool: CUDA is not available: <why>"), not an internal helper such as
// current_device. Runs on every build: the CPU-only stub, a CUDA build on a machine without a GPU,
// and the simulator with its device count forced to 0 (EMBER_SIM_DEVICES=0, set before the first
// CUDA call). Skips visibly where a real GPU is present.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>

#include "ember/cuda.h"
#include "support/test_util.h"

using namespace ember;
using ember::testing::error_of;

namespace {

// Before any CUDA call of this process (a static initialiser runs before main).
const bool g_no_sim_devices = [] {
  ::setenv("EMBER_SIM_DEVICES", "0", 1);
  return true;
}();

TEST(CudaUnavailableCalls, NameTheUsersCall) {
  ASSERT_TRUE(g_no_sim_devices);
  if (cuda::is_available()) GTEST_SKIP() << "a CUDA device is present: nothing is unavailable";
  const std::string why = cuda::unavailable_reason();
  const std::vector<std::pair<std::string, std::function<void()>>> calls = {
      {"getStreamFromPool", [] { cuda::getStreamFromPool(); }},
      {"getStreamFromPool", [] { cuda::getStreamFromPool(true, 0); }},
      {"getDefaultCUDAStream", [] { cuda::getDefaultCUDAStream(); }},
      {"getCurrentCUDAStream", [] { cuda::getCurrentCUDAStream(); }},
      {"current_stream", [] { cuda::current_stream(); }},
      {"default_stream", [] { cuda::default_stream(); }},
      {"Stream::create", [] { cuda::Stream::create(); }},
      {"stream_priority_range", [] { cuda::stream_priority_range(); }},
      {"DeviceGuard", [] { cuda::DeviceGuard guard(0); }},
      {"Event::record",
       [] {
         cuda::Event event;
         event.record();
       }},
      {"Event::elapsed_time",
       [] {
         cuda::Event a(true), b(true);
         (void)a.elapsed_time(b);
       }},
      {"current_device", [] { cuda::current_device(); }},
      {"synchronize", [] { cuda::synchronize(); }},
  };
  for (const auto& [name, call] : calls) {
    const std::string err = error_of(call);
    EXPECT_EQ(err.rfind(name + ": CUDA is not available", 0), 0u) << name << " said: " << err;
    EXPECT_NE(err.find(why), std::string::npos) << err;
  }
}

}  // namespace
