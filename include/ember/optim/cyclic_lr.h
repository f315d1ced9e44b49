#pragma once
// CyclicLR: the lr cycles between base_lr and max_lr, step_size_up iterations up and
// step_size_down down, the amplitude scaled per cycle ("triangular": 1, "triangular2": halved
// each cycle) or per iteration ("exp_range": gamma^iteration), or by a custom scale_fn; the
// momentum cycles inversely, between max_momentum and base_momentum
// (torch.optim.lr_scheduler.CyclicLR). Step it once per batch; counted as LRScheduler counts.
#include <functional>
#include <optional>
#include <string>

#include "ember/nn/arg.h"
#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

// Per-group values take one number for all groups or one per group.
class EMBER_API CyclicLROptions {
 public:
  CyclicLROptions(std::vector<double> base_lr, std::vector<double> max_lr)
      : base_lr_(std::move(base_lr)), max_lr_(std::move(max_lr)) {}
  EMBER_ARG(std::vector<double>, base_lr);
  EMBER_ARG(std::vector<double>, max_lr);
  EMBER_ARG(double, step_size_up) = 2000;
  // Unset: step_size_up.
  EMBER_ARG(std::optional<double>, step_size_down);
  // "triangular", "triangular2" or "exp_range"; ignored when scale_fn is set.
  EMBER_ARG(std::string, mode) = "triangular";
  EMBER_ARG(double, gamma) = 1.0;
  // A custom scaling in [0, 1] of the cycle number or the iteration (scale_mode).
  EMBER_ARG(std::function<double(double)>, scale_fn);
  EMBER_ARG(std::string, scale_mode) = "cycle";
  // Needs an optimizer with a "momentum" option (SGD, RMSprop).
  EMBER_ARG(bool, cycle_momentum) = true;
  EMBER_ARG(std::vector<double>, base_momentum) = {0.8};
  EMBER_ARG(std::vector<double>, max_momentum) = {0.9};
};

class EMBER_API CyclicLR : public LRScheduler {
 public:
  // Throws ValueError for an unknown mode without scale_fn, cycle_momentum on an optimizer
  // without momentum, or per-group lists whose length is not the number of groups.
  CyclicLR(Optimizer& optimizer, CyclicLROptions options);

 protected:
  // Also sets each group's momentum (with cycle_momentum), as PyTorch's get_lr() does.
  std::vector<double> get_lrs() override;

 private:
  double scale(double x) const;

  CyclicLROptions options_;
  std::vector<double> max_lrs_;
  std::vector<double> base_momentums_;
  std::vector<double> max_momentums_;
  double total_size_;
  double step_ratio_;
  std::string scale_mode_;
};

}  // namespace ember::optim
