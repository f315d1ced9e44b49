// clip_grad_norm_ and clip_grad_value_ against torch.nn.utils on the same gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace {

using ember::Tensor;
using ember::testing::expect_close;
using ember::testing::TorchOracle;

struct Grads {
  Tensor g1, g2;
};

Grads make_grads(double scale) {
  ember::manual_seed(11);
  return {ember::randn({4, 5}, ember::kFloat64) * scale,
          ember::randn({6}, ember::kFloat64) * scale};
}

// Three parameters, the middle one without a gradient (it must be skipped).
std::vector<Tensor> params_with(const Grads& g, ember::Device device) {
  Tensor a = ember::zeros({4, 5}, ember::TensorOptions().dtype(ember::kFloat64).device(device));
  Tensor b = ember::zeros({2}, ember::TensorOptions().dtype(ember::kFloat64).device(device));
  Tensor c = ember::zeros({6}, ember::TensorOptions().dtype(ember::kFloat64).device(device));
  for (Tensor* t : {&a, &b, &c}) t->requires_grad_();
  a.mutable_grad() = g.g1.to(device);
  c.mutable_grad() = g.g2.to(device);
  return {a, b, c};
}

TEST(ClipGrad, NormMatchesTorchForEveryNormType) {
  const double inf = std::numeric_limits<double>::infinity();
  for (const auto& device : ember::testing::test_devices()) {
    for (double scale : {0.01, 3.0}) {  // below and above max_norm
      for (double norm_type : {2.0, 1.0, 3.0, inf}) {
        SCOPED_TRACE(device.str() + " scale " + std::to_string(scale) + " norm_type " +
                     std::to_string(norm_type));
        const Grads g = make_grads(scale);
        auto ref = TorchOracle::instance().run(
            "a = torch.zeros(4, 5, dtype=torch.float64, requires_grad=True)\n"
            "b = torch.zeros(2, dtype=torch.float64, requires_grad=True)\n"
            "c = torch.zeros(6, dtype=torch.float64, requires_grad=True)\n"
            "a.grad = g1.clone(); c.grad = g2.clone()\n"
            "n = torch.nn.utils.clip_grad_norm_([a, b, c], 1.5, norm_type=float(p.item()))\n"
            "ga = a.grad; gc = c.grad\n",
            {{"g1", g.g1}, {"g2", g.g2}, {"p", ember::scalar_tensor(norm_type, ember::kFloat64)}},
            {"n", "ga", "gc"});
        auto params = params_with(g, device);
        const double n = ember::nn::utils::clip_grad_norm_(params, 1.5, norm_type);
        EXPECT_NEAR(n, ref.at("n").item<double>(), 1e-12 * std::max(1.0, n));
        expect_close(params[0].grad().cpu(), ref.at("ga"), 1e-12, 1e-14, "a.grad");
        expect_close(params[2].grad().cpu(), ref.at("gc"), 1e-12, 1e-14, "c.grad");
        EXPECT_FALSE(params[1].grad().defined());
      }
    }
  }
}

TEST(ClipGrad, SingleTensorAndNoGradients) {
  Tensor w = ember::zeros({3}, ember::kFloat64).requires_grad_();
  EXPECT_EQ(ember::nn::utils::clip_grad_norm_(w, 1.0), 0.0);
  w.mutable_grad() = ember::tensor({3.0, 4.0, 0.0}, ember::kFloat64);
  EXPECT_NEAR(ember::nn::utils::clip_grad_norm_(w, 1.0), 5.0, 1e-12);
  expect_close(w.grad(), ember::tensor({0.6, 0.8, 0.0}, ember::kFloat64), 1e-6, 0);
}

TEST(ClipGrad, NonFiniteNormIsReportedWhenAsked) {
  Tensor w = ember::zeros({2}, ember::kFloat64).requires_grad_();
  w.mutable_grad() = ember::tensor({1.0, std::numeric_limits<double>::infinity()}, ember::kFloat64);
  try {
    ember::nn::utils::clip_grad_norm_({w}, 1.0, 2.0, /*error_if_nonfinite=*/true);
    ADD_FAILURE() << "an infinite norm was accepted";
  } catch (const ember::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("non-finite (inf)"), std::string::npos) << e.what();
  }
  // Without the flag it scales by the non-finite norm, as PyTorch does.
  EXPECT_TRUE(std::isinf(ember::nn::utils::clip_grad_norm_({w}, 1.0)));
}

TEST(ClipGrad, ValueMatchesTorch) {
  for (const auto& device : ember::testing::test_devices()) {
    SCOPED_TRACE(device.str());
    const Grads g = make_grads(2.0);
    auto ref = TorchOracle::instance().run(
        "a = torch.zeros(4, 5, dtype=torch.float64, requires_grad=True)\n"
        "c = torch.zeros(6, dtype=torch.float64, requires_grad=True)\n"
        "a.grad = g1.clone(); c.grad = g2.clone()\n"
        "torch.nn.utils.clip_grad_value_([a, c], 0.7)\n"
        "ga = a.grad; gc = c.grad\n",
        {{"g1", g.g1}, {"g2", g.g2}}, {"ga", "gc"});
    auto params = params_with(g, device);
    ember::nn::utils::clip_grad_value_(params, 0.7);
    expect_close(params[0].grad().cpu(), ref.at("ga"), 0, 0, "a.grad");
    expect_close(params[2].grad().cpu(), ref.at("gc"), 0, 0, "c.grad");
  }
}

}  // namespace
