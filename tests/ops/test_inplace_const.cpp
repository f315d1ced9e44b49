// In-place methods on const tensors, as libtorch 1.13 declares them (`Tensor& zero_() const`):
// `p.grad().zero_()` on the const Tensor& that grad() returns is the hand-written training loop's
// most common line. This file does not compile unless every in-place method is const.
#include <gtest/gtest.h>

#include <type_traits>
#include <utility>

#include "ember/autograd.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"

using namespace ember;

namespace {

// The in-place calls a libtorch program makes through a const handle, checked at compile time.
template <typename T>
using ConstInplaceCalls =
    decltype(std::declval<const T&>().zero_(), std::declval<const T&>().fill_(1),
             std::declval<const T&>().copy_(std::declval<const T&>()),
             std::declval<const T&>().add_(std::declval<const T&>()),
             std::declval<const T&>().add_(1, 2),
             std::declval<const T&>().sub_(std::declval<const T&>()),
             std::declval<const T&>().sub_(1),
             std::declval<const T&>().mul_(std::declval<const T&>()),
             std::declval<const T&>().mul_(2),
             std::declval<const T&>().div_(std::declval<const T&>()),
             std::declval<const T&>().div_(2), std::declval<const T&>().clamp_(0, 1),
             std::declval<const T&>().relu_(), std::declval<const T&>().neg_(),
             std::declval<const T&>().sqrt_(), std::declval<const T&>().exp_(),
             std::declval<const T&>().uniform_(0, 1), std::declval<const T&>().normal_(0, 1),
             std::declval<const T&>().requires_grad_(),
             std::declval<const T&>().set_requires_grad(true), std::declval<const T&>().detach_(),
             std::declval<const T&>() += std::declval<const T&>(), std::declval<const T&>() += 1,
             std::declval<const T&>() -= std::declval<const T&>(), std::declval<const T&>() -= 1,
             std::declval<const T&>() *= std::declval<const T&>(), std::declval<const T&>() *= 2,
             std::declval<const T&>() /= std::declval<const T&>(), std::declval<const T&>() /= 2);
static_assert(std::is_same_v<ConstInplaceCalls<Tensor>, Tensor&>,
              "in-place methods must be callable on const Tensor&, returning Tensor&");
static_assert(std::is_same_v<decltype(std::declval<const Tensor&>().zero_()), Tensor&>);

}  // namespace

TEST(InplaceConst, GradZeroOnTheConstReferenceGradReturns) {
  Tensor w = ones({3}, kFloat).requires_grad_();
  (w * w).sum().backward();
  const Tensor& g = w.grad();
  ASSERT_TRUE(g.defined());
  EXPECT_TRUE(g.allclose(full({3}, 2.0, kFloat)));
  Tensor& same = w.grad().zero_();
  EXPECT_TRUE(same.is_same(w.grad()));
  EXPECT_TRUE(w.grad().equal(zeros({3}, kFloat)));
  // The zeroed gradient keeps accumulating in the same storage.
  (w * 3).sum().backward();
  EXPECT_TRUE(g.equal(full({3}, 3.0, kFloat)));
}

TEST(InplaceConst, HandWrittenSgdStepThroughConstHandles) {
  for (const Device& dev : ember::testing::test_devices()) {
    Tensor w = full({4}, 1.0, TensorOptions().device(dev)).requires_grad_();
    Tensor x = arange(4, TensorOptions().device(dev));
    (w * x).sum().backward();
    {
      NoGradGuard no_grad;
      const Tensor& cw = w;
      cw.sub_(w.grad() * 0.5);    // w -= lr * grad, on a const handle
      w.grad().detach().mul_(0);  // a detached alias writes the same storage
    }
    EXPECT_TRUE(w.cpu().allclose(tensor({1.0f, 0.5f, 0.0f, -0.5f}))) << dev;
    EXPECT_TRUE(w.grad().cpu().equal(zeros({4}, kFloat))) << dev;
    EXPECT_TRUE(w.is_leaf());
  }
}

TEST(InplaceConst, EveryMethodWritesThroughAConstHandle) {
  Tensor t = zeros({2, 2}, kFloat);
  const Tensor& c = t;
  c.fill_(4);
  c.sqrt_();
  c.add_(1);
  c += 1;
  c *= 2;
  c -= 2;
  c /= 2;
  c.mul_(3).div_(2);
  c.neg_().relu_();
  EXPECT_TRUE(t.equal(zeros({2, 2}, kFloat)));
  c.copy_(tensor({-1.0f, 2.0f}));
  c.clamp_(0, 1).exp_();
  EXPECT_TRUE(t.allclose(tensor({1.0f, 2.718281828f}).expand({2, 2})));
  c.uniform_(2, 3);
  EXPECT_TRUE(t.ge(2).all().item<bool>() && t.lt(3).all().item<bool>());
  c.normal_(0, 1).zero_();
  EXPECT_TRUE(t.equal(zeros({2, 2}, kFloat)));
  c.requires_grad_();
  EXPECT_TRUE(t.requires_grad());
  c.detach_();
  EXPECT_FALSE(t.requires_grad());
}

TEST(InplaceConst, LeafCheckStillAppliesThroughAConstHandle) {
  const Tensor w = ones({2}, kFloat).requires_grad_();
  std::string msg = ember::testing::error_of([&] { w.add_(1); });
  EXPECT_NE(msg.find("a leaf Variable that requires grad is being used in an in-place operation"),
            std::string::npos)
      << msg;
}
