// StepLR and CosineAnnealingLR: the lr sequences (per group) against torch.optim.lr_scheduler,
// counted in libtorch's steps (the n-th step() sets PyTorch's lr after n - 1 steps; libtorch's own
// StepLR is compared directly by tests/compat/optimizers.cpp), and StepLR against libtorch's code.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/torch_oracle.h"

namespace {

using ember::Tensor;
using namespace ember::optim;
using ember::testing::expect_close;
using ember::testing::TorchOracle;

constexpr int kEpochs = 25;

// Two groups (lr 0.1 and 0.02); `torch_sched` builds the scheduler from `opt`. Returns the lrs
// of each group after construction and after each of kEpochs steps: shape [kEpochs + 1, 2].
Tensor torch_lrs(const std::string& torch_sched, const std::string& mid_run = "") {
  const std::string code =
      "a = torch.zeros(2, requires_grad=True); b = torch.zeros(3, requires_grad=True)\n"
      "opt = torch.optim.SGD([{'params': [a]}, {'params': [b], 'lr': 0.02}], lr=0.1)\n"
      "sched = " +
      torch_sched +
      "\n"
      "L = [sched.get_last_lr()]\n"
      "for e in range(" +
      std::to_string(kEpochs) +
      "):\n"
      "    opt.step()\n"
      "    sched.step()\n" +
      mid_run +
      "    L.append(sched.get_last_lr())\n"
      "L = torch.tensor(L, dtype=torch.float64)\n";
  return TorchOracle::instance().run(code, {}, {"L"}).at("L");
}

// PyTorch's sequence as libtorch counts it: the initial lrs, then PyTorch's row n - 1 after the
// n-th step() (libtorch's schedulers do not count their constructor as a step).
Tensor libtorch_counting(const Tensor& torch_rows) {
  return ember::cat({torch_rows.slice(0, 0, 1), torch_rows.slice(0, 0, kEpochs)}, 0);
}

template <typename Make>
Tensor ember_lrs(Make make, bool halve_at_10 = false) {
  Tensor a = ember::zeros({2}).requires_grad_(), b = ember::zeros({3}).requires_grad_();
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a});
  groups.emplace_back(std::vector<Tensor>{b}, std::make_unique<SGDOptions>(0.02));
  SGD opt(groups, SGDOptions(0.1));
  auto sched = make(opt);
  std::vector<double> flat;
  // get_last_lr() is what the scheduler set; it differs from the group's lr only right after
  // the external change.
  auto record = [&](bool external_change = false) {
    const auto& lr = sched.get_last_lr();
    EXPECT_EQ(lr.size(), 2u);
    if (!external_change) EXPECT_DOUBLE_EQ(lr[0], opt.param_groups()[0].options().get_lr());
    flat.insert(flat.end(), lr.begin(), lr.end());
  };
  record();
  for (int e = 0; e < kEpochs; ++e) {
    opt.step();
    sched.step();
    if (halve_at_10 && e == 9) {
      for (auto& g : opt.param_groups()) g.options().set_lr(g.options().get_lr() * 0.5);
    }
    record(halve_at_10 && e == 9);
  }
  return ember::tensor(flat, ember::kFloat64).view({kEpochs + 1, 2});
}

TEST(LRScheduler, StepLRMatchesTorch) {
  Tensor ref = torch_lrs("torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)");
  Tensor lrs = ember_lrs([](Optimizer& o) { return StepLR(o, 3, 0.5); });
  expect_close(lrs, libtorch_counting(ref), 1e-15, 0);
  ref = torch_lrs("torch.optim.lr_scheduler.StepLR(opt, step_size=1)");
  expect_close(ember_lrs([](Optimizer& o) { return StepLR(o, 1); }), libtorch_counting(ref), 1e-15,
               0);
}

TEST(LRScheduler, StepLRCountsAsLibtorch) {
  // libtorch 1.13's StepLR::get_lrs() multiplies by gamma when step_count_ (the calls before this
  // one) is a non-zero multiple of step_size: after n calls, base_lr * gamma^((n - 1) / step_size).
  Tensor lrs = ember_lrs([](Optimizer& o) { return StepLR(o, 3, 0.5); });
  for (int n = 0; n <= kEpochs; ++n) {
    const int exponent = n == 0 ? 0 : (n - 1) / 3;
    EXPECT_DOUBLE_EQ(lrs[n][0].item<double>(), 0.1 * std::pow(0.5, exponent)) << "after " << n;
    EXPECT_DOUBLE_EQ(lrs[n][1].item<double>(), 0.02 * std::pow(0.5, exponent)) << "after " << n;
  }
  // The first step() keeps the lr; the lr first changes on the (step_size + 1)-th.
  Tensor a = ember::zeros({2}).requires_grad_();
  SGD opt({a}, SGDOptions(1.0));
  StepLR sched(opt, 2, 0.1);
  EXPECT_EQ(sched.last_epoch(), -1);
  EXPECT_DOUBLE_EQ(sched.get_last_lr()[0], 1.0);
  std::vector<double> seen;
  for (int i = 0; i < 5; ++i) {
    sched.step();
    seen.push_back(opt.param_groups()[0].options().get_lr());
  }
  EXPECT_EQ(sched.step_count(), 5);
  EXPECT_EQ(sched.last_epoch(), 4);
  const std::vector<double> want = {1.0, 1.0, 0.1, 0.1, 0.01};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(seen[i], want[i], 1e-15) << "step " << i;
}

TEST(LRScheduler, CosineAnnealingLRMatchesTorch) {
  // 25 epochs cover the descent, the minimum at T_max and the climb back past 2 * T_max.
  Tensor ref = torch_lrs("torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=1e-3)");
  Tensor lrs = ember_lrs([](Optimizer& o) { return CosineAnnealingLR(o, 10, 1e-3); });
  expect_close(lrs, libtorch_counting(ref), 1e-12, 1e-15);
  // The minimum eta_min is reached by the (T_max + 1)-th step().
  EXPECT_NEAR(lrs[11][0].item<double>(), 1e-3, 1e-12);
  ref = torch_lrs("torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=7)");
  expect_close(ember_lrs([](Optimizer& o) { return CosineAnnealingLR(o, 7); }),
               libtorch_counting(ref), 1e-12, 1e-15);
}

TEST(LRScheduler, ExternalLrChangesCarryThroughAsInTorch) {
  // Ember halves after its 10th step(), which holds PyTorch's lrs after 9 steps.
  const std::string halve =
      "    if e == 8:\n"
      "        for g in opt.param_groups: g['lr'] *= 0.5\n";
  Tensor ref = torch_lrs("torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=8)", halve);
  expect_close(ember_lrs([](Optimizer& o) { return CosineAnnealingLR(o, 8); }, true),
               libtorch_counting(ref), 1e-12, 1e-15);
  ref = torch_lrs("torch.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.3)", halve);
  expect_close(ember_lrs([](Optimizer& o) { return StepLR(o, 4, 0.3); }, true),
               libtorch_counting(ref), 1e-15, 0);
}

TEST(LRScheduler, BadArgumentsThrow) {
  Tensor a = ember::zeros({2}).requires_grad_();
  SGD opt({a}, SGDOptions(0.1));
  try {
    StepLR s(opt, 0);
    ADD_FAILURE() << "step_size 0 accepted";
  } catch (const ember::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("step_size must be at least 1, got 0"), std::string::npos)
        << e.what();
  }
  try {
    CosineAnnealingLR s(opt, -3);
    ADD_FAILURE() << "T_max -3 accepted";
  } catch (const ember::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("T_max must be at least 1, got -3"), std::string::npos)
        << e.what();
  }
  // A group added after the scheduler was made is reported, not silently ignored.
  StepLR s(opt, 2);
  opt.add_param_group(OptimizerParamGroup({ember::zeros({1}).requires_grad_()}));
  EXPECT_THROW(s.step(), ember::ValueError);
}

}  // namespace
