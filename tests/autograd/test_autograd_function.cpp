// Custom autograd functions (ember::autograd::Function<T>) as libtorch defines them.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::autograd::AutogradContext;
using ember::autograd::variable_list;
using ember::testing::expect_close;

namespace {

// y = x * k, with k a plain number.
struct Scale : autograd::Function<Scale> {
  static Tensor forward(AutogradContext* ctx, Tensor x, double k) {
    ctx->saved_data["k"] = k;
    return x * k;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    return {g[0] * ctx->saved_data["k"].toDouble(), Tensor()};
  }
};

// y = exp(a) * b, saving the output (kept detached: no reference cycle) and an input.
struct ExpMul : autograd::Function<ExpMul> {
  static Tensor forward(AutogradContext* ctx, Tensor a, Tensor b) {
    Tensor e = exp(a);
    Tensor y = e * b;
    ctx->save_for_backward({e, b});
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    auto saved = ctx->get_saved_variables();
    return {g[0] * saved[0] * saved[1], g[0] * saved[0]};
  }
};

// Returns too few gradients.
struct Broken : autograd::Function<Broken> {
  static Tensor forward(AutogradContext*, Tensor x, Tensor y) { return x + y; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }
};

}  // namespace

TEST(AutogradFunction, ScalarArgument) {
  Tensor x = tensor({1.0, -2.0, 3.0}).requires_grad_();
  Tensor y = Scale::apply(x, 2.5);
  expect_close(y.detach(), tensor({2.5f, -5.0f, 7.5f}));
  EXPECT_TRUE(y.requires_grad());
  y.sum().backward();
  expect_close(x.grad(), full({3}, 2.5f));
}

TEST(AutogradFunction, MatchesPyTorchThroughAGraph) {
  manual_seed(3);
  Tensor a = randn({4}, kDouble).requires_grad_();
  Tensor b = randn({4}, kDouble).requires_grad_();
  Tensor loss = (ExpMul::apply(a * 2, b) + b).pow(2).sum();
  loss.backward();
  auto r = ember::testing::TorchOracle::instance().run(
      "a.requires_grad_(); b.requires_grad_(); "
      "((torch.exp(a * 2) * b + b) ** 2).sum().backward(); ga = a.grad; gb = b.grad",
      {{"a", a.detach()}, {"b", b.detach()}}, {"ga", "gb"});
  expect_close(a.grad(), r.at("ga"), 1e-10, 1e-12);
  expect_close(b.grad(), r.at("gb"), 1e-10, 1e-12);
}

TEST(AutogradFunction, NoGraphWithoutGrad) {
  Tensor x = ones({2});
  EXPECT_FALSE(Scale::apply(x, 3.0).requires_grad());
  Tensor w = ones({2}).requires_grad_();
  NoGradGuard g;
  EXPECT_FALSE(Scale::apply(w, 3.0).requires_grad());
}

TEST(AutogradFunction, WrongGradientCountIsAnError) {
  Tensor x = ones({2}).requires_grad_(), y = ones({2}).requires_grad_();
  try {
    Broken::apply(x, y).sum().backward();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected 2, got 1"), std::string::npos) << e.what();
  }
}

TEST(AutogradFunction, ModifiedSavedInputIsAnError) {
  Tensor a = ones({2}).requires_grad_();
  Tensor b = ones({2}) * 1.0;
  Tensor y = ExpMul::apply(a, b);
  b.add_(1);  // b was saved for backward
  EXPECT_THROW(y.sum().backward(), Error);
}
