// The distributions of src/ops/random_sampling.cpp on every device: each sample's mean and spread
// against the distribution's (20000 draws; bounds of about 5 standard errors), integer supports,
// one seed giving the same draws on every device, and PyTorch's messages for bad parameters.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"

namespace ember::testing {
namespace {

constexpr int64_t kDraws = 20000;

// Runs `f`, which must throw E with a message containing `expected`.
template <typename E, typename F>
void expect_error(F f, const std::string& expected) {
  const std::string message = error_of<E>(f);
  EXPECT_NE(message.find(expected), std::string::npos) << message;
}

double mean_of(const Tensor& t) {
  return t.to(kDouble).mean().item<double>();
}
double var_of(const Tensor& t) {
  return t.to(kDouble).var().item<double>();
}

Tensor draws_on(Device dev, ScalarType dt = kFloat) {
  return empty({kDraws}, TensorOptions(dt).device(dev));
}

TEST(RandomSampling, ExponentialGeometricCauchyLogNormalFollowTheirDistributions) {
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str());
    manual_seed(5);
    Tensor e = draws_on(dev).exponential_(2.0).cpu();
    EXPECT_NEAR(mean_of(e), 0.5, 0.02);
    EXPECT_NEAR(var_of(e), 0.25, 0.03);
    EXPECT_GE(e.min().item<float>(), 0.0f);

    Tensor g = draws_on(dev, kLong).geometric_(0.25).cpu();
    EXPECT_NEAR(mean_of(g), 4.0, 0.12);  // 1 / p
    EXPECT_NEAR(var_of(g), 12.0, 1.5);   // (1 - p) / p^2
    EXPECT_EQ(g.min().item<int64_t>(), 1);

    // Cauchy has no mean: its median and quartiles are median +- sigma.
    Tensor c = std::get<0>(draws_on(dev, kDouble).cauchy_(3.0, 0.5).cpu().sort());
    EXPECT_NEAR(c[kDraws / 2].item<double>(), 3.0, 0.03);
    EXPECT_NEAR(c[kDraws / 4].item<double>(), 2.5, 0.04);
    EXPECT_NEAR(c[3 * kDraws / 4].item<double>(), 3.5, 0.04);

    Tensor l = draws_on(dev).log_normal_(0.0, 0.5).cpu();
    EXPECT_NEAR(mean_of(l.log()), 0.0, 0.02);
    EXPECT_NEAR(std::sqrt(var_of(l.log())), 0.5, 0.02);
    EXPECT_GT(l.min().item<float>(), 0.0f);
  }
}

TEST(RandomSampling, BernoulliWithScalarAndTensorProbabilities) {
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str());
    manual_seed(6);
    Tensor b = draws_on(dev, kHalf).bernoulli_(0.3).cpu();
    EXPECT_NEAR(mean_of(b), 0.3, 0.02);
    EXPECT_TRUE(equal(b.mul(b), b));  // only 0s and 1s

    Tensor p = tensor({0.0, 1.0, 0.8}).to(dev).reshape({3, 1}).expand({3, kDraws / 4});
    Tensor drawn = bernoulli(p).cpu();
    EXPECT_EQ(drawn.dtype(), kFloat);
    EXPECT_EQ(mean_of(drawn[0]), 0.0);
    EXPECT_EQ(mean_of(drawn[1]), 1.0);
    EXPECT_NEAR(mean_of(drawn[2]), 0.8, 0.03);

    Tensor into = zeros({2, kDraws / 2}, TensorOptions(kLong).device(dev));
    into.bernoulli_(tensor({0.1, 0.9}).to(dev).reshape({2, 1}));
    EXPECT_NEAR(mean_of(into[0].cpu()), 0.1, 0.02);
    EXPECT_NEAR(mean_of(into[1].cpu()), 0.9, 0.02);
    EXPECT_NEAR(mean_of(bernoulli(zeros({kDraws}, TensorOptions().device(dev)), 0.5).cpu()), 0.5,
                0.02);
  }
}

TEST(RandomSampling, RandomDrawsIntegersInItsRange) {
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str());
    manual_seed(7);
    Tensor r = draws_on(dev, kInt).random_(-3, 4).cpu();
    EXPECT_EQ(r.min().item<int32_t>(), -3);
    EXPECT_EQ(r.max().item<int32_t>(), 3);
    EXPECT_NEAR(mean_of(r), 0.0, 0.06);
    Tensor to = draws_on(dev).random_(10).cpu();
    EXPECT_TRUE(equal(to, to.floor()));
    EXPECT_EQ(to.max().item<float>(), 9.0f);
    Tensor bytes = draws_on(dev, kByte).random_().cpu();
    EXPECT_EQ(bytes.max().item<uint8_t>(), 255);
    EXPECT_NEAR(mean_of(bytes), 127.5, 3.0);
    Tensor bools = draws_on(dev, kBool).random_().cpu();
    EXPECT_NEAR(mean_of(bools), 0.5, 0.02);
  }
}

TEST(RandomSampling, NormalWithTensorParametersBroadcasts) {
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str());
    manual_seed(8);
    Tensor mean = tensor({-2.0, 5.0}).to(dev).reshape({2, 1});
    Tensor std = full({1, kDraws / 2}, 0.5, TensorOptions().device(dev));
    Tensor n = normal(mean, std).cpu();
    EXPECT_EQ(n.sizes(), (std::vector<int64_t>{2, kDraws / 2}));
    EXPECT_NEAR(mean_of(n[0]), -2.0, 0.03);
    EXPECT_NEAR(std::sqrt(var_of(n[1])), 0.5, 0.02);
    Tensor m = normal(zeros({kDraws}, TensorOptions().device(dev)), 3.0).cpu();
    EXPECT_NEAR(std::sqrt(var_of(m)), 3.0, 0.1);
    Tensor s = normal(1.5, full({kDraws}, 2.0, TensorOptions().device(dev))).cpu();
    EXPECT_NEAR(mean_of(s), 1.5, 0.1);
    // Sampling records no graph.
    Tensor leaf = zeros({4}, TensorOptions().device(dev)).requires_grad_();
    EXPECT_FALSE(normal(leaf, 1.0).requires_grad());
  }
}

TEST(RandomSampling, OneSeedGivesTheSameDrawsOnEveryDevice) {
  std::vector<Tensor> draws;
  for (const Device dev : test_devices()) {
    manual_seed(9);
    Tensor t = empty({64}, TensorOptions(kDouble).device(dev));
    t.exponential_();
    draws.push_back(t.cpu());
  }
  for (const Tensor& d : draws) EXPECT_TRUE(allclose(d, draws.front(), 1e-12, 0));
}

TEST(RandomSampling, BadParametersGetPyTorchsMessages) {
  Tensor t = empty({3});
  expect_error<ValueError>([&] { t.exponential_(-1); },
                           "exponential_ expects lambda >= 0.0, but found lambda=-1");
  expect_error<ValueError>([&] { t.geometric_(1.5); },
                           "geometric_ expects p to be in (0, 1), but got p=1.5");
  expect_error<ValueError>([&] { t.log_normal_(1, -2); },
                           "log_normal_ expects std > 0.0, but found std=-2");
  expect_error<ValueError>([&] { t.cauchy_(0, 0); }, "cauchy_ expects sigma > 0.0");
  expect_error<ValueError>([&] { t.bernoulli_(1.5); },
                           "bernoulli_ expects p to be in [0, 1], but got p=1.5");
  expect_error<ValueError>([&] { t.random_(5, 2); },
                           "random_ expects 'from' to be less than 'to', but got from=5 >= to=2");
  expect_error<TypeError>([&] { empty({3}, kLong).exponential_(); },
                          "exponential_ is not implemented for dtype");
  expect_error<ValueError>(
      [&] {
        normal(zeros({2}), tensor({-1.0f, 1.0f}));
      },
      "normal expects all elements of std >= 0.0");
  Tensor leaf = zeros({2}).requires_grad_();
  expect_error<Error>([&] { leaf.exponential_(); }, "a leaf Variable that requires grad");
  // The tensor still works after each refusal.
  EXPECT_EQ(t.uniform_().numel(), 3);
}

}  // namespace
}  // namespace ember::testing
