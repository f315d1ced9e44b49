// Every optimizer and option set against torch.optim (1.13) over 50 steps: the same parameters
// and gradients go through both, the parameters are compared after every step, the optimizer
// state after the last, key for key with PyTorch's state_dict; and PyTorch's state after 25
// steps, loaded into a fresh Ember optimizer, carries on to PyTorch's step-50 parameters.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <set>
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

constexpr int kSteps = 50;
constexpr int kResumeAt = 25;  // steps PyTorch takes before its state is loaded into Ember

struct Case {
  std::string name;
  // Python expression building the optimizer from `ps` (the list [w, b]).
  std::string torch_ctor;
  std::function<std::unique_ptr<Optimizer>(const Tensor& w, const Tensor& b)> make;
  // Every entry of PyTorch's per-parameter state (its state_dict()['state'][i] keys).
  std::vector<std::string> state;
};

template <typename Opt, typename Options>
Case make_case(const std::string& name, const std::string& torch_name, const std::string& py,
               Options o, std::vector<std::string> state) {
  return {name, "torch.optim." + torch_name + "(ps, " + py + ")",
          [o](const Tensor& w, const Tensor& b) {
            return std::make_unique<Opt>(std::vector<Tensor>{w, b}, o);
          },
          std::move(state)};
}

std::vector<Case> all_cases() {
  const std::vector<std::string> adam_state = {"step", "exp_avg", "exp_avg_sq"};
  std::vector<Case> c;
  // The options the first optimizers gained: maximize (with everything else switched on).
  c.push_back(make_case<SGD>("sgd_maximize", "SGD", "lr=0.05, maximize=True",
                             SGDOptions(0.05).maximize(true), {}));
  c.push_back(
      make_case<SGD>("sgd_maximize_nesterov", "SGD",
                     "lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1, maximize=True",
                     SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(0.1).maximize(true),
                     {"momentum_buffer"}));
  c.push_back(make_case<SGD>(
      "sgd_maximize_dampening", "SGD", "lr=0.05, momentum=0.8, dampening=0.3, maximize=True",
      SGDOptions(0.05).momentum(0.8).dampening(0.3).maximize(true), {"momentum_buffer"}));
  c.push_back(make_case<Adam>("adam_maximize_amsgrad", "Adam",
                              "lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True",
                              AdamOptions(0.01).weight_decay(0.1).amsgrad(true).maximize(true),
                              {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}));
  c.push_back(make_case<AdamW>("adamw_maximize", "AdamW", "lr=0.01, maximize=True",
                               AdamWOptions(0.01).maximize(true), adam_state));
  c.push_back(make_case<RMSprop>(
      "rmsprop_maximize_all", "RMSprop",
      "lr=0.01, momentum=0.5, centered=True, weight_decay=0.1, maximize=True",
      RMSpropOptions(0.01).momentum(0.5).centered(true).weight_decay(0.1).maximize(true),
      {"step", "square_avg", "momentum_buffer", "grad_avg"}));

  const std::vector<std::string> adagrad_state = {"step", "sum"};
  c.push_back(
      make_case<Adagrad>("adagrad_default", "Adagrad", "", AdagradOptions(), adagrad_state));
  c.push_back(make_case<Adagrad>(
      "adagrad_all", "Adagrad",
      "lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5, eps=1e-6",
      AdagradOptions(0.1).lr_decay(0.01).weight_decay(0.1).initial_accumulator_value(0.5).eps(1e-6),
      adagrad_state));
  c.push_back(make_case<Adagrad>("adagrad_maximize", "Adagrad", "lr=0.1, maximize=True",
                                 AdagradOptions(0.1).maximize(true), adagrad_state));

  // RAdam's beta2 decides when rho_t passes 5: at step 6 for 0.999, never in 50 steps for 0.5.
  c.push_back(make_case<RAdam>("radam_default", "RAdam", "", RAdamOptions(), adam_state));
  c.push_back(make_case<RAdam>(
      "radam_all", "RAdam", "lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1",
      RAdamOptions(0.01).betas({0.8, 0.99}).eps(1e-6).weight_decay(0.1), adam_state));
  c.push_back(make_case<RAdam>("radam_unrectified", "RAdam", "lr=0.01, betas=(0.9, 0.5)",
                               RAdamOptions(0.01).betas({0.9, 0.5}), adam_state));

  const std::vector<std::string> nadam_state = {"step", "mu_product", "exp_avg", "exp_avg_sq"};
  c.push_back(make_case<NAdam>("nadam_default", "NAdam", "", NAdamOptions(), nadam_state));
  c.push_back(make_case<NAdam>(
      "nadam_all", "NAdam",
      "lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, momentum_decay=0.01",
      NAdamOptions(0.01).betas({0.8, 0.99}).eps(1e-6).weight_decay(0.1).momentum_decay(0.01),
      nadam_state));
  // Groups: w keeps the defaults, b has its own lr and betas.
  c.push_back({"nadam_groups",
               "torch.optim.NAdam([{'params': [ps[0]]}, {'params': [ps[1]], 'lr': 0.05, "
               "'betas': (0.7, 0.95)}], lr=0.01, weight_decay=0.02)",
               [](const Tensor& w, const Tensor& b) {
                 std::vector<OptimizerParamGroup> groups;
                 groups.emplace_back(std::vector<Tensor>{w});
                 groups.emplace_back(std::vector<Tensor>{b},
                                     std::make_unique<NAdamOptions>(
                                         NAdamOptions(0.05).betas({0.7, 0.95}).weight_decay(0.02)));
                 return std::make_unique<NAdam>(groups, NAdamOptions(0.01).weight_decay(0.02));
               },
               nadam_state});

  const std::vector<std::string> adamax_state = {"step", "exp_avg", "exp_inf"};
  c.push_back(make_case<Adamax>("adamax_default", "Adamax", "", AdamaxOptions(), adamax_state));
  c.push_back(make_case<Adamax>(
      "adamax_all", "Adamax", "lr=0.01, betas=(0.8, 0.99), eps=1e-3, weight_decay=0.1",
      AdamaxOptions(0.01).betas({0.8, 0.99}).eps(1e-3).weight_decay(0.1), adamax_state));
  c.push_back(make_case<Adamax>("adamax_maximize", "Adamax", "lr=0.01, maximize=True",
                                AdamaxOptions(0.01).maximize(true), adamax_state));

  const std::vector<std::string> adadelta_state = {"step", "square_avg", "acc_delta"};
  c.push_back(
      make_case<Adadelta>("adadelta_default", "Adadelta", "", AdadeltaOptions(), adadelta_state));
  c.push_back(make_case<Adadelta>(
      "adadelta_all", "Adadelta", "lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1, maximize=True",
      AdadeltaOptions(0.5).rho(0.8).eps(1e-4).weight_decay(0.1).maximize(true), adadelta_state));

  const std::vector<std::string> rprop_state = {"step", "prev", "step_size"};
  c.push_back(make_case<Rprop>("rprop_default", "Rprop", "", RpropOptions(), rprop_state));
  // Narrow step-size bounds so that both clamps bite within 50 steps.
  c.push_back(make_case<Rprop>(
      "rprop_all", "Rprop", "lr=0.02, etas=(0.3, 1.5), step_sizes=(0.005, 0.05), maximize=True",
      RpropOptions(0.02).etas({0.3, 1.5}).step_sizes({0.005, 0.05}).maximize(true), rprop_state));

  const std::vector<std::string> asgd_state = {"step", "eta", "mu", "ax"};
  c.push_back(make_case<ASGD>("asgd_default", "ASGD", "", ASGDOptions(), asgd_state));
  // t0 = 10: the average starts within the run.
  c.push_back(make_case<ASGD>(
      "asgd_all", "ASGD", "lr=0.05, lambd=0.01, alpha=0.5, t0=10, weight_decay=0.1, maximize=True",
      ASGDOptions(0.05).lambd(0.01).alpha(0.5).t0(10).weight_decay(0.1).maximize(true),
      asgd_state));
  return c;
}

// The state entries of parameter `index` in Ember's state dict, by name.
std::map<std::string, Tensor> state_entries(const OptimizerStateDict& sd, int index) {
  const std::string prefix = "state." + std::to_string(index) + ".";
  std::map<std::string, Tensor> out;
  for (const auto& [key, value] : sd) {
    if (key.rfind(prefix, 0) == 0) out[key.substr(prefix.size())] = value;
  }
  return out;
}

void run_case(const Case& c, ember::ScalarType dtype, ember::Device device, double rtol,
              double atol) {
  SCOPED_TRACE(c.name + " " + ember::to_string(dtype) + " on " + device.str());
  ember::manual_seed(ember::testing::seed_for(c.name));
  const auto opts = ember::TensorOptions().dtype(dtype);
  Tensor w0 = ember::randn({3, 4}, opts), b0 = ember::randn({4}, opts);
  Tensor gw = ember::randn({kSteps, 3, 4}, opts), gb = ember::randn({kSteps, 4}, opts);

  // PyTorch: b gets no gradient in step 2 (it must be skipped). State of both parameters after
  // kResumeAt steps, and of w at the end, as tensors (Python numbers through torch.tensor).
  std::string code =
      "ps = [w0.clone().requires_grad_(True), b0.clone().requires_grad_(True)]\n"
      "opt = " +
      c.torch_ctor +
      "\n"
      "W, B = [], []\n"
      "def entries(i):\n"
      "    s = opt.state_dict()['state'][i]\n"
      "    return {k: torch.as_tensor(v).clone() for k, v in s.items() if v is not None}\n"
      "for k in range(" +
      std::to_string(kSteps) +
      "):\n"
      "    ps[0].grad = gw[k].clone()\n"
      "    ps[1].grad = None if k == 1 else gb[k].clone()\n"
      "    opt.step()\n"
      "    W.append(ps[0].detach().clone()); B.append(ps[1].detach().clone())\n"
      "    if k + 1 == " +
      std::to_string(kResumeAt) +
      ":\n"
      "        mid = [entries(0), entries(1)]\n"
      "end = entries(0)\n"
      "W = torch.stack(W); B = torch.stack(B)\n"
      "n_state = len(end)\n";
  std::vector<std::string> outputs = {"W", "B", "n_state"};
  for (const auto& s : c.state) {
    code += "mid0_" + s + " = mid[0]['" + s + "']\nmid1_" + s + " = mid[1]['" + s + "']\nend_" + s +
            " = end['" + s + "']\n";
    outputs.insert(outputs.end(), {"mid0_" + s, "mid1_" + s, "end_" + s});
  }
  auto ref =
      TorchOracle::instance().run(code, {{"w0", w0}, {"b0", b0}, {"gw", gw}, {"gb", gb}}, outputs);
  ASSERT_EQ(ref.at("n_state").item<int64_t>(), static_cast<int64_t>(c.state.size()))
      << "the case lists another number of state entries than PyTorch keeps";

  auto set_grads = [&](Tensor& w, Tensor& b, int k) {
    w.mutable_grad() = gw[k].to(device);
    b.mutable_grad() = k == 1 ? Tensor() : gb[k].to(device);
  };

  // From scratch: every step's parameters, then the state, key for key.
  {
    Tensor w = w0.to(device).requires_grad_(), b = b0.to(device).requires_grad_();
    auto opt = c.make(w, b);
    for (int k = 0; k < kSteps; ++k) {
      SCOPED_TRACE("step " + std::to_string(k + 1));
      set_grads(w, b, k);
      opt->step();
      ASSERT_EQ(w.device(), device);
      expect_close(w.detach().cpu(), ref.at("W")[k], rtol, atol, "w");
      expect_close(b.detach().cpu(), ref.at("B")[k], rtol, atol, "b");
    }
    auto mine = state_entries(opt->state_dict(), 0);
    std::set<std::string> names;
    for (const auto& [name, t] : mine) names.insert(name);
    EXPECT_EQ(names, std::set<std::string>(c.state.begin(), c.state.end()));
    for (const auto& s : c.state) {
      if (!mine.count(s)) continue;
      const Tensor& expected = ref.at("end_" + s);
      expect_close(mine.at(s).cpu().to(expected.dtype()), expected, rtol, atol, "state " + s);
    }
  }

  // Resumed: PyTorch's parameters and state after kResumeAt steps, loaded into a fresh
  // optimizer (Ember's own param_groups entries, PyTorch's state entries), end where PyTorch does.
  {
    SCOPED_TRACE("resumed from PyTorch's state after step " + std::to_string(kResumeAt));
    Tensor w = ref.at("W")[kResumeAt - 1].to(device).requires_grad_();
    Tensor b = ref.at("B")[kResumeAt - 1].to(device).requires_grad_();
    auto opt = c.make(w, b);
    OptimizerStateDict sd;
    for (const auto& [key, value] : opt->state_dict()) {
      if (key.rfind("param_groups.", 0) == 0) sd[key] = value;
    }
    for (const auto& s : c.state) {
      sd["state.0." + s] = ref.at("mid0_" + s);
      sd["state.1." + s] = ref.at("mid1_" + s);
    }
    opt->load_state_dict(sd);
    for (int k = kResumeAt; k < kSteps; ++k) {
      set_grads(w, b, k);
      opt->step();
    }
    expect_close(w.detach().cpu(), ref.at("W")[kSteps - 1], rtol, atol, "w");
    expect_close(b.detach().cpu(), ref.at("B")[kSteps - 1], rtol, atol, "b");
  }
}

// Every case on the CPU; on the first CUDA device (further ones run the same kernels) one case
// per optimizer with its options switched on, as each simulated device adds some 10 s per 20
// cases.
TEST(OptimTrajectories, Float64FollowsTorchFor50Steps) {
  const std::set<std::string> on_cuda = {"sgd_maximize_nesterov",
                                         "adam_maximize_amsgrad",
                                         "adamw_maximize",
                                         "rmsprop_maximize_all",
                                         "adagrad_all",
                                         "radam_default",
                                         "nadam_groups",
                                         "adamax_all",
                                         "adadelta_all",
                                         "rprop_all",
                                         "asgd_all"};
  size_t known = 0;
  for (const auto& c : all_cases()) known += on_cuda.count(c.name);
  ASSERT_EQ(known, on_cuda.size()) << "on_cuda names a case that does not exist";
  const auto devices = ember::testing::test_devices();
  for (size_t d = 0; d < devices.size() && d < 2; ++d) {
    for (const auto& c : all_cases()) {
      if (devices[d].is_cpu() || on_cuda.count(c.name)) {
        run_case(c, ember::kFloat64, devices[d], 1e-6, 1e-9);
      }
    }
  }
}

// float32 rounding differs between the libraries' kernels; on the CPU it is enough to show the
// trajectories stay together.
TEST(OptimTrajectories, Float32FollowsTorchFor50Steps) {
  for (const auto& c : all_cases())
    run_case(c, ember::kFloat32, ember::Device(ember::kCPU), 1e-4, 1e-5);
}

TEST(OptimTrajectories, DefaultsAreTorchs) {
  EXPECT_DOUBLE_EQ(AdagradOptions().lr(), 1e-2);
  EXPECT_DOUBLE_EQ(AdagradOptions().eps(), 1e-10);
  EXPECT_DOUBLE_EQ(AdadeltaOptions().lr(), 1.0);
  EXPECT_DOUBLE_EQ(AdadeltaOptions().rho(), 0.9);
  EXPECT_DOUBLE_EQ(AdadeltaOptions().eps(), 1e-6);
  EXPECT_DOUBLE_EQ(AdamaxOptions().lr(), 2e-3);
  EXPECT_DOUBLE_EQ(NAdamOptions().lr(), 2e-3);
  EXPECT_DOUBLE_EQ(NAdamOptions().momentum_decay(), 4e-3);
  EXPECT_DOUBLE_EQ(RAdamOptions().lr(), 1e-3);
  EXPECT_DOUBLE_EQ(ASGDOptions().t0(), 1e6);
  EXPECT_DOUBLE_EQ(ASGDOptions().alpha(), 0.75);
  EXPECT_DOUBLE_EQ(std::get<1>(RpropOptions().step_sizes()), 50.0);
  EXPECT_DOUBLE_EQ(std::get<1>(RpropOptions().etas()), 1.2);
  EXPECT_FALSE(SGDOptions(0.1).maximize());
}

// libtorch's Adagrad creates every parameter's state in its constructor (PyTorch's too).
TEST(OptimTrajectories, AdagradStateExistsFromConstruction) {
  Tensor w = ember::zeros({2, 3}).requires_grad_();
  Adagrad opt({w}, AdagradOptions(0.1).initial_accumulator_value(0.25));
  auto sd = opt.state_dict();
  EXPECT_EQ(sd.at("state.0.step").item<int64_t>(), 0);
  expect_close(sd.at("state.0.sum"), ember::full({2, 3}, 0.25));
}

}  // namespace
