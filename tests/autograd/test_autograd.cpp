// The autograd engine: graph construction, accumulation, retain_graph, grad modes, in-place
// checks, autograd::grad and gradients of the core ops against PyTorch.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::expect_close;
using ember::testing::torch_run;
using ember::testing::TorchOracle;

TEST(Autograd, SimpleChainMatchesPyTorch) {
  manual_seed(0);
  Tensor x = randn({3, 4}, kDouble).requires_grad_();
  Tensor w = randn({4}, kDouble).requires_grad_();
  Tensor y = ((x * w).exp() + x / (w * w + 1) - x.sigmoid() * 2).tanh().sum();
  y.backward();
  auto r = TorchOracle::instance().run(
      "x.requires_grad_(); w.requires_grad_(); "
      "y = ((x * w).exp() + x / (w * w + 1) - x.sigmoid() * 2).tanh().sum(); y.backward(); "
      "gx = x.grad; gw = w.grad",
      {{"x", x.detach()}, {"w", w.detach()}}, {"y", "gx", "gw"});
  expect_close(y.detach(), r.at("y"), 1e-12, 1e-12);
  expect_close(x.grad(), r.at("gx"), 1e-10, 1e-12);
  expect_close(w.grad(), r.at("gw"), 1e-10, 1e-12);
}

TEST(Autograd, GradsAccumulateIntoLeaves) {
  Tensor x = ones({2}).requires_grad_();
  (x * 3).sum().backward();
  (x * 3).sum().backward();
  expect_close(x.grad(), full({2}, 6.f));
  x.mutable_grad().zero_();
  (x * x).sum().backward();
  expect_close(x.grad(), full({2}, 2.f));
}

TEST(Autograd, BackwardTwiceNeedsRetainGraph) {
  Tensor x = ones({2}).requires_grad_();
  Tensor y = (x.exp() * x).sum();
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();  // allowed: graph was retained
  try {
    y.backward();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("second time"), std::string::npos);
  }
}

TEST(Autograd, BackwardOnTensorWithoutGrad) {
  try {
    ones({1}).backward();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not require grad"), std::string::npos);
  }
  Tensor x = ones({3}).requires_grad_();
  EXPECT_THROW((x * 2).backward(), Error);  // non-scalar without gradient argument
  Tensor y = x * 2;
  y.backward(full({3}, 0.5f));
  expect_close(x.grad(), ones({3}));
}

TEST(Autograd, NoGradGuardAndDetach) {
  Tensor x = ones({2}).requires_grad_();
  {
    NoGradGuard g;
    Tensor y = x * 2;
    EXPECT_FALSE(y.requires_grad());
    {
      EnableGradGuard e;
      EXPECT_TRUE((x * 2).requires_grad());
    }
  }
  EXPECT_TRUE((x * 2).requires_grad());
  EXPECT_FALSE((x * 2).detach().requires_grad());
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE((x * 2).is_leaf());
  EXPECT_EQ((x * 2).grad_fn()->name(), "MulBackward1");
}

TEST(Autograd, InPlaceChecks) {
  Tensor leaf = ones({2}).requires_grad_();
  EXPECT_THROW(leaf.add_(1), Error);
  EXPECT_THROW(leaf.mul_(2), Error);
  {
    NoGradGuard g;
    leaf.add_(1);  // allowed without grad recording (optimizer updates)
  }
  EXPECT_EQ(leaf.sum().item<float>(), 4.f);
  // Modifying a tensor saved for backward is detected.
  Tensor a = ones({2}).requires_grad_();
  Tensor b = a * 2;
  Tensor c = b.exp();  // saves its output
  Tensor loss = c.sum();
  {
    NoGradGuard g;
    c.add_(1);
  }
  try {
    loss.backward();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("modified by an inplace operation"), std::string::npos);
  }
}

TEST(Autograd, InPlaceOnNonLeafKeepsGradient) {
  // Same results as PyTorch: b = (2a) * (a + 1) + 1, db/da = 4a + 2.
  Tensor a = tensor({1.0, 2.0, 3.0}).requires_grad_();
  Tensor b = a * 2;
  Tensor c = a + 1;
  b.mul_(c);
  b.add_(1);
  b.sum().backward();
  expect_close(a.grad(), tensor({6.0f, 10.0f, 14.0f}));
  // d.mul_(d) reads a clone of d for both operands, so its backward still has the old value
  // (PyTorch reports an in-place error here instead) and no reference cycle is left behind.
  Tensor a2 = tensor({1.0, 2.0, 3.0}).requires_grad_();
  Tensor d = a2 * 2;
  d.mul_(d);
  d.sum().backward();
  expect_close(a2.grad(), tensor({8.0f, 16.0f, 24.0f}));
}

TEST(Autograd, RetainGradOnNonLeaf) {
  Tensor a = ones({2}).requires_grad_();
  Tensor b = a * 3;
  b.retain_grad();
  (b * b).sum().backward();
  expect_close(b.grad(), full({2}, 6.f));
}

TEST(Autograd, GradFunction) {
  Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_();
  Tensor y = (x * x * x).sum();
  auto g = autograd::grad({y}, {x}, {}, true, true);
  expect_close(g[0], tensor({3.0, 12.0}, kDouble));
  EXPECT_FALSE(x.grad().defined());
  // Second derivative through create_graph.
  auto g2 = autograd::grad({g[0].sum()}, {x});
  expect_close(g2[0], tensor({6.0, 12.0}, kDouble));
}

TEST(Autograd, DoubleBackwardThroughSavedOutputs) {
  // exp, tanh, sigmoid and sqrt save their output for backward; with create_graph the saved
  // output must carry the path back to x, or the second derivative misses a term.
  Tensor x = tensor({0.3, -1.2, 2.0}, kDouble).requires_grad_();
  auto g = autograd::grad({(exp(x) + tanh(x) + sigmoid(x) + sqrt(x * x + 1)).sum()}, {x}, {},
                          std::nullopt, /*create_graph=*/true);
  g[0].sum().backward();
  auto r = torch_run(
      "x.requires_grad_()\n"
      "g, = torch.autograd.grad((x.exp() + x.tanh() + x.sigmoid() + (x * x + 1).sqrt()).sum(), "
      "x, create_graph=True)\n"
      "g.sum().backward()\ngg = x.grad",
      {{"x", x.detach()}}, {"g", "gg"});
  expect_close(g[0], r.at("g"), 1e-12, 1e-12);
  expect_close(x.grad(), r.at("gg"), 1e-12, 1e-12);
}

TEST(Autograd, GradLeavesOtherLeavesUntouched) {
  // torch.autograd.grad computes the asked-for gradients only: the other leaves' .grad stays
  // undefined (a bug once accumulated into them, which double backward then counted twice).
  Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_();
  Tensor w = tensor({3.0, -1.0}, kDouble).requires_grad_();
  Tensor y = (x * w).sum();
  for (bool create_graph : {false, true}) {
    auto g = autograd::grad({y}, {x}, {}, true, create_graph);
    expect_close(g[0], tensor({3.0, -1.0}, kDouble));
    EXPECT_FALSE(w.grad().defined()) << "create_graph=" << create_graph;
    EXPECT_FALSE(x.grad().defined()) << "create_graph=" << create_graph;
  }
}

TEST(Autograd, BroadcastGradientsSumBack) {
  Tensor a = randn({3, 1}, kDouble).requires_grad_();
  Tensor b = randn({4}, kDouble).requires_grad_();
  ((a + b) * (a - b) / (b.abs() + 1)).pow(2).sum().backward();
  auto r = TorchOracle::instance().run(
      "a.requires_grad_(); b.requires_grad_(); "
      "((a + b) * (a - b) / (b.abs() + 1)).pow(2).sum().backward(); ga = a.grad; gb = b.grad",
      {{"a", a.detach()}, {"b", b.detach()}}, {"ga", "gb"});
  expect_close(a.grad(), r.at("ga"), 1e-10, 1e-12);
  expect_close(b.grad(), r.at("gb"), 1e-10, 1e-12);
}

TEST(Autograd, ToAndCopyGradients) {
  Tensor x = randn({3}, kDouble).requires_grad_();
  Tensor y = x.to(kFloat) * 2;
  y.sum().backward();
  EXPECT_EQ(x.grad().dtype(), kDouble);
  expect_close(x.grad(), full({3}, 2.0, kDouble));
}

TEST(Autograd, RequiresGradOnlyForFloats) {
  EXPECT_THROW(ones({2}, kLong).requires_grad_(), TypeError);
  Tensor nonleaf = ones({2}).requires_grad_() * 2;
  EXPECT_THROW(nonleaf.requires_grad_(false), Error);
}
