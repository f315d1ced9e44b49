// Index ops on CUDA check their indices in the kernel, as PyTorch's device asserts: a bad index
// is a sticky "device-side assert triggered" (so those cases run in a child process), and good
// indices need no host synchronisation. Runs on a GPU or on the simulator; skipped otherwise.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>

#include "ember/ember.h"
#include "support/cuda_skip.h"

namespace ember {
namespace {

class CudaIndex : public ::testing::Test {
 protected:
  void SetUp() override {
    EMBER_SKIP_WITHOUT_CUDA();
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

// Runs `bad` (which must fail with a device-side assert), then shows that the context is gone:
// exits 0 when both held, 1 otherwise.
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
    (void)ones({2}, TensorOptions().device("cuda:0")).sum().item<float>();
  } catch (const Error& e) {
    sticky = std::string(e.what()).find("device-side assert triggered") != std::string::npos;
  }
  std::exit(asserted && sticky ? 0 : 1);
}

Tensor cuda_randn(std::vector<int64_t> shape) {
  return randn(shape).to(Device("cuda:0"));
}
Tensor cuda_index(std::vector<int64_t> values) {
  return from_blob(values.data(), {static_cast<int64_t>(values.size())},
                   TensorOptions().dtype(kLong))
      .to(Device("cuda:0"));
}

void bad_gather() {
  (void)gather(cuda_randn({3, 4}), 1, cuda_index({0, 4, 1}).reshape({3, 1}));
}
void bad_index_select() {
  (void)index_select(cuda_randn({3, 4}), 0, cuda_index({2, -1}));
}
void bad_cross_entropy_target() {
  (void)nn::functional::cross_entropy(cuda_randn({2, 5}), cuda_index({1, 5}));
}

TEST_F(CudaIndex, BadGatherIndexIsADeviceSideAssert) {
  EXPECT_EXIT(expect_device_assert(bad_gather), ::testing::ExitedWithCode(0),
              "first: .*device-side assert triggered");
}
TEST_F(CudaIndex, BadIndexSelectIndexIsADeviceSideAssert) {
  EXPECT_EXIT(expect_device_assert(bad_index_select), ::testing::ExitedWithCode(0),
              "first: .*device-side assert triggered");
}
TEST_F(CudaIndex, BadCrossEntropyTargetIsADeviceSideAssert) {
  EXPECT_EXIT(expect_device_assert(bad_cross_entropy_target), ::testing::ExitedWithCode(0),
              "first: .*device-side assert triggered");
}

TEST_F(CudaIndex, GoodIndicesGiveTheCpuResults) {
  Tensor x = randn({4, 6});
  Tensor idx = tensor({5, 0, 3, 3}).reshape({4, 1});
  Tensor rows = tensor({3, 1, 1});
  const Device d("cuda:0");
  EXPECT_TRUE(equal(gather(x.to(d), 1, idx.to(d)).cpu(), gather(x, 1, idx)));
  EXPECT_TRUE(equal(index_select(x.to(d), 0, rows.to(d)).cpu(), index_select(x, 0, rows)));
  Tensor xg = x.to(d).requires_grad_();
  gather(xg, 1, idx.to(d)).sum().backward();  // scatter_add in the backward
  Tensor xc = x.clone().requires_grad_();
  gather(xc, 1, idx).sum().backward();
  EXPECT_TRUE(equal(xg.grad().cpu(), xc.grad()));
}

}  // namespace
}  // namespace ember
