// Integer remainder / fmod / floor division by zero on CUDA. A divisor on the device is checked by
// the kernel, as index bounds are: a zero is a sticky "device-side assert triggered" (so those
// cases run in a child process) and a good divisor costs no host synchronisation. Host divisors (a
// scalar, a 0-dim CPU tensor) are checked before the launch: a ZeroDivisionError, and the context
// stays usable. Runs on a GPU or on the simulator; skipped otherwise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "ember/ember.h"
#include "support/cuda_skip.h"

namespace ember {
namespace {

class CudaIntegerDivision : public ::testing::Test {
 protected:
  void SetUp() override {
    EMBER_SKIP_WITHOUT_CUDA();
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

const Device kCuda("cuda:0");

// Runs `bad` (which must fail with a device-side assert), then shows that the context is gone:
// exits 0 when both held, 1 otherwise. The kernel's message ("ZeroDivisionError: ...") is on
// stderr: a GPU prints the failed assertion there, and the simulator's error carries it, which
// the "first:" line prints; the death tests' pattern asks for it.
[[noreturn]] void expect_device_assert(const std::function<void()>& bad) {
  bool asserted = false;
  try {
    bad();
    cuda::synchronize();
  } catch (const Error& e) {
    std::fprintf(stderr, "first: %s\n", e.what());
    asserted = std::string(e.what()).find("device-side assert triggered") != std::string::npos;
  }
  bool sticky = false;
  try {
    (void)ones({2}, TensorOptions().device(kCuda)).sum().item<float>();
  } catch (const Error& e) {
    sticky = std::string(e.what()).find("device-side assert triggered") != std::string::npos;
  }
  std::exit(asserted && sticky ? 0 : 1);
}

// What stderr shows: the kernel's assertion, then Ember's error.
constexpr const char* kAssertOnStderr =
    "ZeroDivisionError: integer division by zero(.|\n)*first: .*device-side assert triggered";

Tensor cuda_ints(std::vector<int64_t> values, ScalarType dt = kLong) {
  return tensor(values, kLong).to(dt).to(kCuda);
}

TEST_F(CudaIntegerDivision, ZeroDeviceDivisorIsADeviceSideAssert) {
  EXPECT_EXIT(expect_device_assert([] {
                (void)remainder(cuda_ints({5, 6}), cuda_ints({1, 0}));
              }),
              ::testing::ExitedWithCode(0), kAssertOnStderr);
  EXPECT_EXIT(expect_device_assert([] {
                (void)fmod(cuda_ints({5, 6}, kInt), cuda_ints({0, 3}, kInt));
              }),
              ::testing::ExitedWithCode(0), kAssertOnStderr);
  EXPECT_EXIT(expect_device_assert([] {
                (void)floor_divide(cuda_ints({5, 6}, kByte), cuda_ints({0}, kByte));
              }),
              ::testing::ExitedWithCode(0), kAssertOnStderr);
  // A scalar dividend over a device divisor (the scalar rides as a kernel argument).
  EXPECT_EXIT(expect_device_assert([] {
                (void)(7 % cuda_ints({2, 0}));
              }),
              ::testing::ExitedWithCode(0), kAssertOnStderr);
}

TEST_F(CudaIntegerDivision, HostDivisorsThrowBeforeTheLaunch) {
  Tensor a = cuda_ints({5, -6});
  EXPECT_THROW(a % 0, ZeroDivisionError);
  EXPECT_THROW(div(a, 0, "trunc"), ZeroDivisionError);
  EXPECT_THROW(fmod(a, tensor(int64_t{0})), ZeroDivisionError);  // a 0-dim CPU tensor
  // The context is still usable, and good divisors give the CPU's results.
  Tensor b = cuda_ints({4, -4});
  EXPECT_TRUE(equal(remainder(a, b).cpu(), tensor({1, -2}, kLong)));
  EXPECT_TRUE(equal(fmod(a, b).cpu(), tensor({1, -2}, kLong)));
  EXPECT_TRUE(equal(floor_divide(a, b).cpu(), tensor({1, 1}, kLong)));
  EXPECT_TRUE(equal(div(a, b, "trunc").cpu(), tensor({1, 1}, kLong)));
  // Floating division by zero is no error: NaN, as in PyTorch.
  EXPECT_TRUE(std::isnan((ones({2}, TensorOptions().device(kCuda)) % 0).sum().item<float>()));
}

}  // namespace
}  // namespace ember
