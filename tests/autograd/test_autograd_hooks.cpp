// Post-accumulate-grad hooks (Tensor.register_post_accumulate_grad_hook) and final callbacks
// queued during backward (Variable._execution_engine.queue_callback): what DistributedDataParallel
// builds on.
#include <gtest/gtest.h>

#include "ember/autograd.h"
#include "ember/nn.h"
#include "ember/ops.h"
#include "support/test_util.h"

using ember::Tensor;
using ember::testing::contains;
using ember::testing::error_of;

namespace {

TEST(PostAccumulateGradHook, RunsAfterTheGradientIsInGradInBackwardOrder) {
  ember::manual_seed(0);
  auto fc1 = ember::nn::Linear(3, 4), fc2 = ember::nn::Linear(4, 2);
  std::vector<std::string> order;
  std::vector<Tensor> seen_grads;
  auto watch = [&](const Tensor& p, const std::string& name) {
    return ember::autograd::register_post_accumulate_grad_hook(p, [&, name](const Tensor& leaf) {
      order.push_back(name);
      seen_grads.push_back(leaf.grad().clone());
    });
  };
  watch(fc1->weight, "fc1.weight");
  watch(fc2->weight, "fc2.weight");
  Tensor x = ember::randn({5, 3});
  fc2->forward(fc1->forward(x).tanh()).sum().backward();
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0], "fc2.weight");  // the last layer's gradient is ready first
  EXPECT_EQ(order[1], "fc1.weight");
  EXPECT_TRUE(seen_grads[0].equal(fc2->weight.grad()));
  EXPECT_TRUE(seen_grads[1].equal(fc1->weight.grad()));
}

TEST(PostAccumulateGradHook, SeesAccumulatedValuesAndCanBeRemoved) {
  Tensor w = ember::ones({2}).requires_grad_();
  std::vector<float> sums;
  auto h = ember::autograd::register_post_accumulate_grad_hook(
      w, [&](const Tensor& leaf) { sums.push_back(leaf.grad().sum().item<float>()); });
  (w * 3).sum().backward();
  (w * 3).sum().backward();  // accumulates: 6 + 6
  ember::autograd::remove_post_accumulate_grad_hook(w, h);
  (w * 3).sum().backward();
  EXPECT_EQ(sums, (std::vector<float>{6.0f, 12.0f}));
}

TEST(PostAccumulateGradHook, OnlyOnLeavesThatRequireGrad) {
  Tensor w = ember::ones({2}).requires_grad_();
  Tensor y = w * 2;
  EXPECT_TRUE(contains(error_of([&] {
                         ember::autograd::register_post_accumulate_grad_hook(y,
                                                                             [](const Tensor&) {});
                       }),
                       "cannot be registered on non-leaf tensors"));
}

TEST(QueueCallback, RunsOnceEveryNodeHasRun) {
  Tensor a = ember::ones({3}).requires_grad_(), b = ember::ones({3}).requires_grad_();
  std::vector<std::string> log;
  ember::autograd::register_post_accumulate_grad_hook(a, [&](const Tensor&) {
    log.push_back("a");
    ember::autograd::queue_callback([&] {
      log.push_back(b.grad().defined() ? "callback after b" : "callback before b");
      ember::autograd::queue_callback([&] { log.push_back("nested"); });
    });
  });
  ember::autograd::register_post_accumulate_grad_hook(b,
                                                      [&](const Tensor&) { log.push_back("b"); });
  (a * 2 + b.exp()).sum().backward();
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[2], "callback after b");
  EXPECT_EQ(log[3], "nested");
}

TEST(QueueCallback, OutsideBackwardIsAnError) {
  EXPECT_TRUE(contains(error_of([] { ember::autograd::queue_callback([] {}); }),
                       "no backward pass is running"));
}

TEST(QueueCallback, ItsErrorLeavesBackward) {
  Tensor a = ember::ones({3}).requires_grad_();
  ember::autograd::register_post_accumulate_grad_hook(a, [](const Tensor&) {
    ember::autograd::queue_callback([] { throw ember::ValueError("from the callback"); });
  });
  EXPECT_TRUE(contains(error_of<ember::ValueError>([&] { (a * 2).sum().backward(); }),
                       "from the callback"));
}

}  // namespace
