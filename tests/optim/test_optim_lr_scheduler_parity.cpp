// Every learning-rate scheduler of torch.optim.lr_scheduler (PyTorch 1.13) against PyTorch run
// by the oracle on the same two-group optimizer: the lrs (and the momentum or beta1 that CyclicLR
// and OneCycleLR cycle) for 60 steps, to 1e-12 relative, counted in libtorch's steps (Ember's
// n-th step() sets PyTorch's values after n - 1 steps; see LRScheduler). Also SequentialLR and
// ChainedScheduler compositions, lrs edited between steps, step_to() against PyTorch's
// step(epoch), ReduceLROnPlateau, and the errors with PyTorch's texts.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/torch_oracle.h"

namespace {

using ember::Tensor;
using namespace ember::optim;
using ember::testing::expect_close;
using ember::testing::TorchOracle;

constexpr int kSteps = 60;
using Make = std::function<std::shared_ptr<LRScheduler>(Optimizer&)>;

// The optimizer both sides use: two groups (lr 0.1 and 0.02), SGD with momentum 0.9 or Adam.
const char* kTorchOptimizer =
    "a = torch.zeros(2, requires_grad=True); b = torch.zeros(3, requires_grad=True)\n"
    "groups = [{'params': [a]}, {'params': [b], 'lr': 0.02}]\n"
    "opt = torch.optim.SGD(groups, lr=0.1, momentum=0.9) if kind == 'SGD' else "
    "torch.optim.Adam(groups, lr=0.1)\n"
    "def row():\n"
    "    r = list(sched.get_last_lr()) + [g['lr'] for g in opt.param_groups]\n"
    "    r += [g['momentum'] if 'momentum' in g else g['betas'][0] for g in opt.param_groups]\n"
    "    return r\n";

std::unique_ptr<Optimizer> ember_optimizer(const std::string& kind) {
  Tensor a = ember::zeros({2}).requires_grad_(), b = ember::zeros({3}).requires_grad_();
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a});
  if (kind == "SGD") {
    // A group with its own options takes no defaults: momentum as PyTorch's group inherits.
    groups.emplace_back(std::vector<Tensor>{b},
                        std::make_unique<SGDOptions>(SGDOptions(0.02).momentum(0.9)));
    return std::make_unique<SGD>(groups, SGDOptions(0.1).momentum(0.9));
  }
  groups.emplace_back(std::vector<Tensor>{b}, std::make_unique<AdamOptions>(0.02));
  return std::make_unique<Adam>(groups, AdamOptions(0.1));
}

double momentum_of(const OptimizerOptions& o) {
  for (const auto& [name, value] : o.values()) {
    if (name == "momentum" || name == "beta1") return value;
  }
  return NAN;
}

std::vector<double> ember_row(const Optimizer& opt, const LRScheduler& sched) {
  std::vector<double> row = sched.get_last_lr();
  for (const auto& g : opt.param_groups()) row.push_back(g.options().get_lr());
  for (const auto& g : opt.param_groups()) row.push_back(momentum_of(g.options()));
  return row;
}

Tensor rows_tensor(const std::vector<std::vector<double>>& rows) {
  std::vector<double> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  return ember::tensor(flat, ember::kFloat64)
      .view({static_cast<int64_t>(rows.size()), static_cast<int64_t>(rows[0].size())});
}

// PyTorch's rows after its constructor and after each of kSteps steps; `between` (Python, at the
// loop's indent) runs after each step with the step index in `i`.
Tensor torch_rows(const std::string& sched, const std::string& kind = "SGD",
                  const std::string& between = "") {
  const std::string code = "kind = '" + kind + "'\n" + kTorchOptimizer +
                           "import math\nsched = " + sched + "\nL = [row()]\nfor i in range(" +
                           std::to_string(kSteps) + "):\n    opt.step()\n    sched.step()\n" +
                           between +
                           "    L.append(row())\nL = torch.tensor(L, dtype=torch.float64)\n";
  return TorchOracle::instance().run(code, {}, {"L"}).at("L");
}

// Ember's rows after each of kSteps + 1 step() calls: row n is PyTorch's row n (PyTorch's
// constructor step is Ember's first step()). Construction itself changes no group.
Tensor ember_rows(const Make& make, const std::string& kind = "SGD", int halve_after = -1) {
  auto opt = ember_optimizer(kind);
  const std::vector<double> untouched = [&] {
    std::vector<double> r;
    for (const auto& g : opt->param_groups()) r.push_back(g.options().get_lr());
    for (const auto& g : opt->param_groups()) r.push_back(momentum_of(g.options()));
    return r;
  }();
  auto sched = make(*opt);
  std::vector<double> now;
  for (const auto& g : opt->param_groups()) now.push_back(g.options().get_lr());
  for (const auto& g : opt->param_groups()) now.push_back(momentum_of(g.options()));
  EXPECT_EQ(now, untouched) << "constructing the scheduler changed the optimizer";
  std::vector<std::vector<double>> rows;
  for (int n = 0; n <= kSteps; ++n) {
    opt->step();
    sched->step();
    if (halve_after >= 0 && n - 1 == halve_after) {
      for (auto& g : opt->param_groups()) g.options().set_lr(g.options().get_lr() * 0.5);
    }
    rows.push_back(ember_row(*opt, *sched));
  }
  return rows_tensor(rows);
}

void expect_matches(const Make& make, const std::string& torch_sched,
                    const std::string& kind = "SGD") {
  SCOPED_TRACE(torch_sched);
  expect_close(ember_rows(make, kind), torch_rows(torch_sched, kind), 1e-12, 0);
}

template <typename S, typename... Args>
Make make(Args... args) {
  return [=](Optimizer& o) { return std::make_shared<S>(o, args...); };
}

const std::string kS = "torch.optim.lr_scheduler.";

TEST(LRSchedulerParity, LambdaAndMultiplicative) {
  expect_matches(make<LambdaLR>(LRLambda([](int64_t e) { return std::pow(0.95, e); })),
                 kS + "LambdaLR(opt, lambda e: 0.95 ** e)");
  expect_matches(
      [](Optimizer& o) {
        return std::make_shared<LambdaLR>(
            o, std::vector<LRLambda>{[](int64_t e) { return 1.0 / (e + 1); },
                                     [](int64_t e) { return std::pow(0.5, e / 7); }});
      },
      kS + "LambdaLR(opt, [lambda e: 1 / (e + 1), lambda e: 0.5 ** (e // 7)])");
  expect_matches(make<MultiplicativeLR>(LRLambda([](int64_t e) { return e % 2 ? 0.97 : 0.99; })),
                 kS + "MultiplicativeLR(opt, lambda e: 0.97 if e % 2 else 0.99)");
}

TEST(LRSchedulerParity, StepSchedules) {
  expect_matches(make<StepLR>(7u, 0.5), kS + "StepLR(opt, step_size=7, gamma=0.5)");
  expect_matches(make<MultiStepLR>(std::vector<int64_t>{5, 20, 20, 40}, 0.3),
                 kS + "MultiStepLR(opt, milestones=[5, 20, 20, 40], gamma=0.3)");
  expect_matches(make<ExponentialLR>(0.93), kS + "ExponentialLR(opt, gamma=0.93)");
}

TEST(LRSchedulerParity, WarmUpAndDecaySchedules) {
  expect_matches(make<ConstantLR>(0.25, int64_t{8}),
                 kS + "ConstantLR(opt, factor=0.25, total_iters=8)");
  expect_matches(make<ConstantLR>(), kS + "ConstantLR(opt)");
  expect_matches(make<LinearLR>(0.05, 0.9, int64_t{20}),
                 kS + "LinearLR(opt, start_factor=0.05, end_factor=0.9, total_iters=20)");
  expect_matches(make<LinearLR>(1.0, 0.1, int64_t{30}),
                 kS + "LinearLR(opt, start_factor=1.0, end_factor=0.1, total_iters=30)");
  expect_matches(make<PolynomialLR>(int64_t{40}, 2.0),
                 kS + "PolynomialLR(opt, total_iters=40, power=2.0)");
  expect_matches(make<PolynomialLR>(), kS + "PolynomialLR(opt)");
}

TEST(LRSchedulerParity, CosineSchedules) {
  expect_matches(make<CosineAnnealingLR>(int64_t{15}, 1e-4),
                 kS + "CosineAnnealingLR(opt, T_max=15, eta_min=1e-4)");
  expect_matches(make<CosineAnnealingWarmRestarts>(int64_t{5}, int64_t{2}, 1e-3),
                 kS + "CosineAnnealingWarmRestarts(opt, T_0=5, T_mult=2, eta_min=1e-3)");
  expect_matches(make<CosineAnnealingWarmRestarts>(int64_t{7}),
                 kS + "CosineAnnealingWarmRestarts(opt, T_0=7)");
}

TEST(LRSchedulerParity, CyclicLRWithMomentum) {
  expect_matches(make<CyclicLR>(CyclicLROptions({0.01}, {0.1}).step_size_up(7).step_size_down(5)),
                 kS + "CyclicLR(opt, 0.01, 0.1, step_size_up=7, step_size_down=5)");
  expect_matches(make<CyclicLR>(CyclicLROptions({0.01, 0.002}, {0.1, 0.05})
                                    .step_size_up(4)
                                    .mode("triangular2")
                                    .base_momentum({0.7, 0.8})
                                    .max_momentum({0.95})),
                 kS + "CyclicLR(opt, [0.01, 0.002], [0.1, 0.05], step_size_up=4, "
                      "mode='triangular2', base_momentum=[0.7, 0.8], max_momentum=0.95)");
  expect_matches(
      make<CyclicLR>(CyclicLROptions({0.01}, {0.1}).step_size_up(6).mode("exp_range").gamma(0.97)),
      kS + "CyclicLR(opt, 0.01, 0.1, step_size_up=6, mode='exp_range', gamma=0.97)");
  expect_matches(make<CyclicLR>(CyclicLROptions({0.01}, {0.1})
                                    .step_size_up(5)
                                    .scale_fn([](double x) { return 1 / (1 + 0.1 * x); })
                                    .scale_mode("iterations")
                                    .cycle_momentum(false)),
                 kS + "CyclicLR(opt, 0.01, 0.1, step_size_up=5, scale_fn=lambda x: 1 / (1 + 0.1 "
                      "* x), scale_mode='iterations', cycle_momentum=False)");
}

TEST(LRSchedulerParity, OneCycleLRWithMomentumAndBeta1) {
  const Make two_phase = make<OneCycleLR>(OneCycleLROptions({0.5, 0.2}).total_steps(kSteps));
  const std::string torch_two = kS + "OneCycleLR(opt, max_lr=[0.5, 0.2], total_steps=60)";
  expect_matches(two_phase, torch_two);
  expect_matches(two_phase, torch_two, "Adam");
  const Make three_phase = make<OneCycleLR>(OneCycleLROptions({0.4})
                                                .epochs(6)
                                                .steps_per_epoch(10)
                                                .pct_start(0.25)
                                                .anneal_strategy("linear")
                                                .three_phase(true)
                                                .div_factor(10.0)
                                                .final_div_factor(100.0));
  const std::string torch_three =
      kS +
      "OneCycleLR(opt, max_lr=0.4, epochs=6, steps_per_epoch=10, pct_start=0.25, "
      "anneal_strategy='linear', three_phase=True, div_factor=10.0, final_div_factor=100.0)";
  expect_matches(three_phase, torch_three);
  expect_matches(three_phase, torch_three, "Adam");
  expect_matches(make<OneCycleLR>(OneCycleLROptions({0.3}).total_steps(65).cycle_momentum(false)),
                 kS + "OneCycleLR(opt, max_lr=0.3, total_steps=65, cycle_momentum=False)");
}

using Schedulers = std::vector<std::shared_ptr<LRScheduler>>;

Make warmup_cosine() {
  return [](Optimizer& o) {
    auto warm = std::make_shared<LinearLR>(o, 0.01, 1.0, 10);
    auto cosine = std::make_shared<CosineAnnealingLR>(o, 40, 1e-5);
    return std::make_shared<SequentialLR>(o, Schedulers{warm, cosine}, std::vector<int64_t>{10});
  };
}
const std::string kTorchWarmupCosine =
    kS + "SequentialLR(opt, [" + kS + "LinearLR(opt, start_factor=0.01, total_iters=10), " + kS +
    "CosineAnnealingLR(opt, T_max=40, eta_min=1e-5)], milestones=[10])";

Make constant_exponential() {
  return [](Optimizer& o) {
    return std::make_shared<ChainedScheduler>(Schedulers{std::make_shared<ConstantLR>(o, 0.1, 10),
                                                         std::make_shared<ExponentialLR>(o, 0.95)});
  };
}
const std::string kTorchConstantExponential = kS + "ChainedScheduler([" + kS +
                                              "ConstantLR(opt, factor=0.1, total_iters=10), " + kS +
                                              "ExponentialLR(opt, gamma=0.95)])";

TEST(LRSchedulerParity, SequentialLR) {
  expect_matches(warmup_cosine(), kTorchWarmupCosine);
  expect_matches(
      [](Optimizer& o) {
        return std::make_shared<SequentialLR>(o,
                                              Schedulers{std::make_shared<ConstantLR>(o, 0.1, 5),
                                                         std::make_shared<ExponentialLR>(o, 0.9),
                                                         std::make_shared<StepLR>(o, 4, 0.5)},
                                              std::vector<int64_t>{5, 25});
      },
      kS + "SequentialLR(opt, [" + kS + "ConstantLR(opt, factor=0.1, total_iters=5), " + kS +
          "ExponentialLR(opt, gamma=0.9), " + kS + "StepLR(opt, step_size=4, gamma=0.5)], " +
          "milestones=[5, 25])");
  expect_matches(
      [](Optimizer& o) {
        return std::make_shared<SequentialLR>(
            o,
            Schedulers{std::make_shared<MultiStepLR>(o, std::vector<int64_t>{3, 6}, 0.5),
                       std::make_shared<PolynomialLR>(o, 20, 1.5)},
            std::vector<int64_t>{12});
      },
      kS + "SequentialLR(opt, [" + kS + "MultiStepLR(opt, milestones=[3, 6], gamma=0.5), " + kS +
          "PolynomialLR(opt, 20, 1.5)], milestones=[12])");
}

TEST(LRSchedulerParity, ChainedScheduler) {
  expect_matches(constant_exponential(), kTorchConstantExponential);
  expect_matches(
      [](Optimizer& o) {
        return std::make_shared<ChainedScheduler>(Schedulers{
            std::make_shared<LinearLR>(o, 0.2, 1.0, 8), std::make_shared<CosineAnnealingLR>(o, 12),
            std::make_shared<MultiStepLR>(o, std::vector<int64_t>{30, 45}, 0.5)});
      },
      kS + "ChainedScheduler([" + kS + "LinearLR(opt, start_factor=0.2, total_iters=8), " + kS +
          "CosineAnnealingLR(opt, T_max=12), " + kS +
          "MultiStepLR(opt, milestones=[30, 45], gamma=0.5)])");
}

TEST(LRSchedulerParity, LrsEditedBetweenStepsCarryThrough) {
  // PyTorch halves after its step 6 (i == 5), which is Ember's 7th step() (n == 6).
  const std::string halve =
      "    if i == 5:\n"
      "        for g in opt.param_groups: g['lr'] *= 0.5\n";
  const std::vector<std::pair<Make, std::string>> cases = {
      {make<LinearLR>(0.05, 0.9, int64_t{20}),
       kS + "LinearLR(opt, start_factor=0.05, end_factor=0.9, total_iters=20)"},
      {make<PolynomialLR>(int64_t{40}, 2.0), kS + "PolynomialLR(opt, total_iters=40, power=2.0)"},
      {make<ConstantLR>(0.25, int64_t{8}), kS + "ConstantLR(opt, factor=0.25, total_iters=8)"},
      {make<MultiStepLR>(std::vector<int64_t>{5, 20}, 0.3),
       kS + "MultiStepLR(opt, milestones=[5, 20], gamma=0.3)"},
      {warmup_cosine(), kTorchWarmupCosine},
      {constant_exponential(), kTorchConstantExponential},
  };
  for (const auto& [m, torch_sched] : cases) {
    SCOPED_TRACE(torch_sched);
    expect_close(ember_rows(m, "SGD", 5), torch_rows(torch_sched, "SGD", halve), 1e-12, 0);
  }
}

TEST(LRSchedulerParity, StepToMatchesTorchStepWithEpoch) {
  const std::vector<int64_t> epochs = {3, 4, 10, 2, 17, 17, 30, 0, 8};
  const std::vector<std::pair<Make, std::string>> cases = {
      {make<StepLR>(7u, 0.5), kS + "StepLR(opt, step_size=7, gamma=0.5)"},
      {make<MultiStepLR>(std::vector<int64_t>{5, 20, 20}, 0.3),
       kS + "MultiStepLR(opt, milestones=[5, 20, 20], gamma=0.3)"},
      {make<ConstantLR>(0.25, int64_t{8}), kS + "ConstantLR(opt, factor=0.25, total_iters=8)"},
      {make<LinearLR>(0.05, 0.9, int64_t{20}),
       kS + "LinearLR(opt, start_factor=0.05, end_factor=0.9, total_iters=20)"},
      {make<ExponentialLR>(0.93), kS + "ExponentialLR(opt, gamma=0.93)"},
      {make<PolynomialLR>(int64_t{40}, 2.0), kS + "PolynomialLR(opt, total_iters=40, power=2.0)"},
      {make<CosineAnnealingLR>(int64_t{15}, 1e-4),
       kS + "CosineAnnealingLR(opt, T_max=15, eta_min=1e-4)"},
      {make<CosineAnnealingWarmRestarts>(int64_t{5}, int64_t{2}, 1e-3),
       kS + "CosineAnnealingWarmRestarts(opt, T_0=5, T_mult=2, eta_min=1e-3)"},
  };
  std::string epoch_list;
  for (int64_t e : epochs) epoch_list += std::to_string(e) + ", ";
  for (const auto& [m, torch_sched] : cases) {
    SCOPED_TRACE(torch_sched);
    const std::string code =
        std::string("kind = 'SGD'\n") + kTorchOptimizer +
        "import warnings\nwarnings.simplefilter('ignore')\nsched = " + torch_sched +
        "\nL = []\nfor e in [" + epoch_list +
        "]:\n    sched.step(e)\n    L.append(row())\n"
        "L = torch.tensor(L, dtype=torch.float64)\n";
    Tensor ref = TorchOracle::instance().run(code, {}, {"L"}).at("L");
    auto opt = ember_optimizer("SGD");
    auto sched = m(*opt);
    std::vector<std::vector<double>> rows;
    for (int64_t e : epochs) {
      sched->step_to(e);
      rows.push_back(ember_row(*opt, *sched));
    }
    expect_close(rows_tensor(rows), ref, 1e-12, 0);
  }
}

TEST(LRSchedulerParity, ReduceLROnPlateau) {
  using P = ReduceLROnPlateauScheduler;
  struct Case {
    std::function<std::unique_ptr<P>(Optimizer&)> make;
    std::string torch_kwargs;
  };
  const std::vector<Case> cases = {
      {[](Optimizer& o) { return std::make_unique<P>(o); }, ""},
      {[](Optimizer& o) {
         return std::make_unique<P>(o, P::max, 0.5, 2, 1e-4, P::rel, 3,
                                    std::vector<double>{0.001, 0.0});
       },
       "mode='max', patience=2, factor=0.5, cooldown=3, min_lr=[0.001, 0.0]"},
      {[](Optimizer& o) {
         return std::make_unique<P>(o, P::min, 0.1, 1, 0.01, P::abs, 0, std::vector<double>{},
                                    1e-3);
       },
       "threshold_mode='abs', threshold=0.01, patience=1, eps=1e-3"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.torch_kwargs);
    const std::string code =
        std::string("kind = 'SGD'\n") + kTorchOptimizer +
        "import math\nsched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, " + c.torch_kwargs +
        ")\nL = []\nfor i in range(" + std::to_string(kSteps) +
        "):\n    sched.step(1.0 / (1 + i) if i < 10 else 0.1 + 0.001 * math.sin(i))\n"
        "    L.append([g['lr'] for g in opt.param_groups] + [sched.num_bad_epochs, "
        "sched.cooldown_counter, sched.best])\nL = torch.tensor(L, dtype=torch.float64)\n";
    Tensor ref = TorchOracle::instance().run(code, {}, {"L"}).at("L");
    auto opt = ember_optimizer("SGD");
    auto sched = c.make(*opt);
    std::vector<std::vector<double>> rows;
    for (int i = 0; i < kSteps; ++i) {
      sched->step(i < 10 ? 1.0 / (1 + i) : 0.1 + 0.001 * std::sin(i));
      std::vector<double> row;
      for (const auto& g : opt->param_groups()) row.push_back(g.options().get_lr());
      EXPECT_EQ(sched->get_last_lr()[0], row[0]);
      row.push_back(static_cast<double>(sched->num_bad_epochs()));
      row.push_back(static_cast<double>(sched->cooldown_counter()));
      row.push_back(sched->best());
      rows.push_back(row);
    }
    expect_close(rows_tensor(rows), ref, 1e-12, 0);
  }
}

// The message of the ValueError `fn` throws ("" when none).
std::string value_error(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ember::ValueError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::function<void()>& fn, const std::string& text) {
  const std::string what = value_error(fn);
  EXPECT_NE(what.find(text), std::string::npos) << "wanted '" << text << "', got '" << what << "'";
}

TEST(LRSchedulerParity, ErrorsCarryPyTorchsTexts) {
  auto opt = ember_optimizer("SGD");
  Optimizer& o = *opt;
  // OneCycleLR: total_steps + 1 step() calls (PyTorch: total_steps after its constructor).
  OneCycleLR one(o, OneCycleLROptions({0.1}).total_steps(10));
  for (int i = 0; i < 11; ++i) one.step();
  expect_error([&] { one.step(); },
               "Tried to step 12 times. The specified number of total steps is 10");
  expect_error([&] { OneCycleLR(o, OneCycleLROptions({0.1})); },
               "You must define either total_steps OR (epochs AND steps_per_epoch)");
  expect_error([&] { OneCycleLR(o, OneCycleLROptions({0.1}).total_steps(0)); },
               "Expected positive integer total_steps, but got 0");
  expect_error([&] { OneCycleLR(o, OneCycleLROptions({0.1}).epochs(2).steps_per_epoch(-1)); },
               "Expected positive integer steps_per_epoch, but got -1");
  expect_error([&] { OneCycleLR(o, OneCycleLROptions({0.1}).total_steps(10).pct_start(1.5)); },
               "Expected float between 0 and 1 pct_start, but got 1.5");
  expect_error(
      [&] { OneCycleLR(o, OneCycleLROptions({0.1}).total_steps(10).anneal_strategy("step")); },
      "anneal_strategy must by one of 'cos' or 'linear', instead got step");
  expect_error(
      [&] {
        OneCycleLR(o, OneCycleLROptions({0.1, 0.2, 0.3}).total_steps(10));
      },
      "expected 2 values for max_lr, got 3");
  expect_error([&] { CyclicLR(o, CyclicLROptions({0.1}, {1.0}).mode("tri")); },
               "mode is invalid and scale_fn is None");
  auto adam = ember_optimizer("Adam");
  expect_error([&] { CyclicLR(*adam, CyclicLROptions({0.1}, {1.0})); },
               "optimizer must support momentum with `cycle_momentum` option enabled");
  expect_error([&] { CosineAnnealingWarmRestarts(o, 0); },
               "Expected positive integer T_0, but got 0");
  expect_error([&] { CosineAnnealingWarmRestarts(o, 2, 0); },
               "Expected integer T_mult >= 1, but got 0");
  expect_error([&] { CosineAnnealingWarmRestarts(o, 2).step_to(-1.0); },
               "Expected non-negative epoch, but got -1");
  expect_error([&] { ConstantLR(o, 2.0); },
               "Constant multiplicative factor expected to be between 0 and 1");
  expect_error([&] { LinearLR(o, -0.1); },
               "Starting multiplicative factor expected to be between 0 and 1");
  expect_error([&] { LinearLR(o, 0.5, 1.5); },
               "Ending multiplicative factor expected to be between 0 and 1");
  expect_error([&] { LambdaLR(o, std::vector<LRLambda>{[](int64_t) { return 1.0; }}); },
               "Expected 2 lr_lambdas, but got 1");
  expect_error(
      [&] {
        SequentialLR(o, Schedulers{std::make_shared<StepLR>(o, 2), std::make_shared<StepLR>(o, 3)},
                     {2, 4});
      },
      "expects number of schedulers provided to be one more than the number of milestone "
      "points, but got number of schedulers 2 and the number of milestones to be equal to 2");
  auto other = ember_optimizer("SGD");
  expect_error(
      [&] {
        SequentialLR(
            o, Schedulers{std::make_shared<StepLR>(o, 2), std::make_shared<StepLR>(*other, 3)},
            {2});
      },
      "got schedulers at index 1 to be different than the optimizer passed in.");
  expect_error(
      [&] {
        ChainedScheduler(
            Schedulers{std::make_shared<StepLR>(o, 2), std::make_shared<StepLR>(*other, 3)});
      },
      "got schedulers at index 0 and 1 to be different");
  auto stepped = std::make_shared<StepLR>(o, 2);
  stepped->step();
  expect_error([&] { SequentialLR(o, Schedulers{stepped}, {}); },
               "the scheduler at index 0 was stepped 1 times already");
  expect_error([&] { ReduceLROnPlateauScheduler(o, ReduceLROnPlateauScheduler::min, 1.0); },
               "Factor should be < 1.0.");
  expect_error(
      [&] {
        ReduceLROnPlateauScheduler(o, ReduceLROnPlateauScheduler::min, 0.1, 10, 1e-4,
                                   ReduceLROnPlateauScheduler::rel, 0, {0.1, 0.2, 0.3});
      },
      "expected 2 min_lrs, got 3");
}

}  // namespace
