// SGD, Adam and AdamW against torch.optim: identical parameters and gradients go through several
// steps in both, and the parameters and the optimizer state are compared after every step.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace {

using ember::Tensor;
using namespace ember::optim;
using ember::testing::expect_close;
using ember::testing::TorchOracle;

constexpr int kSteps = 5;

struct Case {
  std::string name;
  // Python expression building the optimizer from `ps` (the list [w, b]).
  std::string torch_ctor;
  std::function<std::unique_ptr<Optimizer>(const Tensor& w, const Tensor& b)> make;
  // State entries compared per step (for w, the parameter that always has a gradient).
  std::vector<std::string> state;
};

// Reads one named state tensor of `p` through the public state() map.
Tensor state_of(Optimizer& opt, const Tensor& p, const std::string& name) {
  auto it = opt.state().find(p.unsafeGetTensorImpl());
  EXPECT_NE(it, opt.state().end()) << "no state for the parameter";
  if (it == opt.state().end()) return Tensor();
  for (auto& [n, t] : it->second->tensors()) {
    if (n == name) return t;
  }
  ADD_FAILURE() << "no state entry " << name;
  return Tensor();
}

// Runs `c` for kSteps steps on `device`; b gets no gradient in step 1 (it must be skipped).
void run_case(const Case& c, ember::ScalarType dtype, ember::Device device, double rtol,
              double atol) {
  SCOPED_TRACE(c.name + " " + ember::to_string(dtype) + " on " + device.str());
  ember::manual_seed(ember::testing::seed_for(c.name));
  const auto opts = ember::TensorOptions().dtype(dtype);
  Tensor w0 = ember::randn({3, 4}, opts), b0 = ember::randn({4}, opts);
  Tensor gw = ember::randn({kSteps, 3, 4}, opts), gb = ember::randn({kSteps, 4}, opts);

  std::string code =
      "ps = [w0.clone().requires_grad_(True), b0.clone().requires_grad_(True)]\n"
      "opt = " +
      c.torch_ctor +
      "\n"
      "W, B = [], []\n";
  for (const auto& s : c.state) code += s + "_ = []\n";
  code += "for k in range(" + std::to_string(kSteps) +
          "):\n"
          "    ps[0].grad = gw[k].clone()\n"
          "    ps[1].grad = None if k == 1 else gb[k].clone()\n"
          "    opt.step()\n"
          "    W.append(ps[0].detach().clone()); B.append(ps[1].detach().clone())\n";
  for (const auto& s : c.state)
    code += "    " + s + "_.append(opt.state[ps[0]]['" + s + "'].clone())\n";
  code += "W = torch.stack(W); B = torch.stack(B)\n";
  std::vector<std::string> outputs = {"W", "B"};
  for (const auto& s : c.state) {
    code += s + "_ = torch.stack(" + s + "_)\n";
    outputs.push_back(s + "_");
  }
  auto ref =
      TorchOracle::instance().run(code, {{"w0", w0}, {"b0", b0}, {"gw", gw}, {"gb", gb}}, outputs);

  Tensor w = w0.to(device).requires_grad_(), b = b0.to(device).requires_grad_();
  auto opt = c.make(w, b);
  for (int k = 0; k < kSteps; ++k) {
    SCOPED_TRACE("step " + std::to_string(k + 1));
    w.mutable_grad() = gw[k].to(device);
    b.mutable_grad() = k == 1 ? Tensor() : gb[k].to(device);
    opt->step();
    EXPECT_EQ(w.device(), device);
    expect_close(w.detach().cpu(), ref.at("W")[k], rtol, atol, "w");
    expect_close(b.detach().cpu(), ref.at("B")[k], rtol, atol, "b");
    for (const auto& s : c.state) {
      Tensor st = state_of(*opt, w, s);
      if (st.defined()) expect_close(st.cpu(), ref.at(s + "_")[k], rtol, atol, s);
    }
  }
}

std::vector<Tensor> both(const Tensor& w, const Tensor& b) {
  return {w, b};
}

std::vector<Case> sgd_cases() {
  std::vector<Case> cases;
  auto add = [&](std::string name, std::string py, SGDOptions o, bool has_buf) {
    cases.push_back(
        {name, "torch.optim.SGD(ps, " + py + ")",
         [o](const Tensor& w, const Tensor& b) { return std::make_unique<SGD>(both(w, b), o); },
         has_buf ? std::vector<std::string>{"momentum_buffer"} : std::vector<std::string>{}});
  };
  add("sgd_plain", "lr=0.1", SGDOptions(0.1), false);
  add("sgd_weight_decay", "lr=0.1, weight_decay=0.01", SGDOptions(0.1).weight_decay(0.01), false);
  add("sgd_momentum", "lr=0.05, momentum=0.9", SGDOptions(0.05).momentum(0.9), true);
  add("sgd_dampening", "lr=0.05, momentum=0.9, dampening=0.3",
      SGDOptions(0.05).momentum(0.9).dampening(0.3), true);
  add("sgd_nesterov", "lr=0.05, momentum=0.8, nesterov=True",
      SGDOptions(0.05).momentum(0.8).nesterov(true), true);
  add("sgd_all", "lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.1",
      SGDOptions(0.05).momentum(0.9).dampening(0.1).weight_decay(0.1), true);
  add("sgd_nesterov_wd", "lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.05",
      SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(0.05), true);
  // Groups: w keeps the defaults, b has its own lr and momentum.
  cases.push_back(
      {"sgd_groups",
       "torch.optim.SGD([{'params': [ps[0]]}, {'params': [ps[1]], 'lr': 0.5, 'momentum': 0.5}], "
       "lr=0.05, momentum=0.9)",
       [](const Tensor& w, const Tensor& b) {
         std::vector<OptimizerParamGroup> groups;
         groups.emplace_back(std::vector<Tensor>{w});
         groups.emplace_back(std::vector<Tensor>{b},
                             std::make_unique<SGDOptions>(SGDOptions(0.5).momentum(0.5)));
         return std::make_unique<SGD>(groups, SGDOptions(0.05).momentum(0.9));
       },
       {"momentum_buffer"}});
  return cases;
}

template <typename Opt, typename Options>
std::vector<Case> adam_cases(const std::string& torch_name, const std::string& prefix) {
  std::vector<Case> cases;
  const std::vector<std::string> state = {"exp_avg", "exp_avg_sq"};
  auto add = [&](std::string name, std::string py, Options o) {
    std::vector<std::string> s = state;
    if (o.amsgrad()) s.push_back("max_exp_avg_sq");
    cases.push_back(
        {prefix + name, "torch.optim." + torch_name + "(ps, " + py + ")",
         [o](const Tensor& w, const Tensor& b) { return std::make_unique<Opt>(both(w, b), o); },
         s});
  };
  add("_default", "lr=1e-3", Options(1e-3));
  add("_betas_eps", "lr=0.01, betas=(0.8, 0.99), eps=1e-6",
      Options(0.01).betas({0.8, 0.99}).eps(1e-6));
  add("_weight_decay", "lr=0.01, weight_decay=0.1", Options(0.01).weight_decay(0.1));
  add("_amsgrad", "lr=0.01, amsgrad=True", Options(0.01).amsgrad(true));
  add("_amsgrad_wd", "lr=0.02, betas=(0.5, 0.9), weight_decay=0.05, amsgrad=True",
      Options(0.02).betas({0.5, 0.9}).weight_decay(0.05).amsgrad(true));
  cases.push_back(
      {prefix + "_groups",
       "torch.optim." + torch_name +
           "([{'params': [ps[0]]}, {'params': [ps[1]], 'lr': 0.1, 'betas': (0.7, 0.95)}], "
           "lr=0.01, weight_decay=0.02)",
       [](const Tensor& w, const Tensor& b) {
         std::vector<OptimizerParamGroup> groups;
         groups.emplace_back(std::vector<Tensor>{w});
         groups.emplace_back(
             std::vector<Tensor>{b},
             std::make_unique<Options>(Options(0.1).betas({0.7, 0.95}).weight_decay(0.02)));
         return std::make_unique<Opt>(groups, Options(0.01).weight_decay(0.02));
       },
       state});
  return cases;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases = sgd_cases();
  for (auto& c : adam_cases<Adam, AdamOptions>("Adam", "adam")) cases.push_back(c);
  for (auto& c : adam_cases<AdamW, AdamWOptions>("AdamW", "adamw")) cases.push_back(c);
  return cases;
}

TEST(OptimParity, Float64MatchesTorchEveryStep) {
  for (const auto& device : ember::testing::test_devices()) {
    for (const auto& c : all_cases()) run_case(c, ember::kFloat64, device, 1e-10, 1e-12);
  }
}

TEST(OptimParity, Float32MatchesTorchEveryStep) {
  for (const auto& device : ember::testing::test_devices()) {
    for (const auto& c : all_cases()) run_case(c, ember::kFloat32, device, 1e-5, 1e-6);
  }
}

TEST(OptimParity, AdamWDefaultWeightDecayIsOnePercent) {
  EXPECT_DOUBLE_EQ(AdamWOptions().weight_decay(), 1e-2);
  EXPECT_DOUBLE_EQ(AdamOptions().weight_decay(), 0.0);
  EXPECT_DOUBLE_EQ(AdamOptions().lr(), 1e-3);
  EXPECT_DOUBLE_EQ(std::get<1>(AdamOptions().betas()), 0.999);
}

TEST(OptimParity, ClosureIsEvaluatedWithGradAndItsLossReturned) {
  Tensor w = ember::tensor({1.0, -2.0}, ember::kFloat64).requires_grad_();
  SGD opt({w}, SGDOptions(0.1));
  ember::NoGradGuard no_grad;  // step() must enable grad for the closure regardless
  Tensor loss = opt.step([&] {
    opt.zero_grad();
    Tensor l = (w * w).sum();
    l.backward();
    return l;
  });
  EXPECT_DOUBLE_EQ(loss.item<double>(), 5.0);
  // w -= 0.1 * 2w
  expect_close(w.detach(), ember::tensor({0.8, -1.6}, ember::kFloat64));
  EXPECT_FALSE(w.detach().requires_grad());
}

TEST(OptimParity, ZeroGradDropsOrZeroesGradients) {
  Tensor w = ember::ones({3}).requires_grad_();
  Adam opt({w});
  (w * 2).sum().backward();
  opt.zero_grad(/*set_to_none=*/false);
  ASSERT_TRUE(w.grad().defined());
  expect_close(w.grad(), ember::zeros({3}));
  opt.zero_grad();
  EXPECT_FALSE(w.grad().defined());
  // No gradient: step() leaves the parameter and creates no state.
  opt.step();
  expect_close(w.detach(), ember::ones({3}));
  EXPECT_TRUE(opt.state().empty());
}

TEST(OptimParity, ParametersAndAddParamGroup) {
  Tensor a = ember::zeros({2}).requires_grad_(), b = ember::zeros({3}).requires_grad_();
  SGD opt({a}, SGDOptions(0.1).momentum(0.9));
  opt.add_param_group(OptimizerParamGroup({b}, std::make_unique<SGDOptions>(0.5)));
  ASSERT_EQ(opt.param_groups().size(), 2u);
  EXPECT_EQ(opt.size(), 2u);
  EXPECT_TRUE(opt.parameters()[1].is_same(b));
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].options().get_lr(), 0.1);
  EXPECT_DOUBLE_EQ(opt.param_groups()[1].options().get_lr(), 0.5);
  EXPECT_DOUBLE_EQ(static_cast<SGDOptions&>(opt.param_groups()[1].options()).momentum(), 0.0);
  // A group without options takes a copy of the defaults.
  Tensor c = ember::zeros({1}).requires_grad_();
  opt.add_param_group(OptimizerParamGroup({c}));
  EXPECT_DOUBLE_EQ(static_cast<SGDOptions&>(opt.param_groups()[2].options()).momentum(), 0.9);
}

}  // namespace
