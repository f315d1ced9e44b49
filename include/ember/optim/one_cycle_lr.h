#pragma once
// OneCycleLR, the 1cycle policy: the lr anneals from max_lr / div_factor up to max_lr over
// pct_start of total_steps, then down to (max_lr / div_factor) / final_div_factor (three_phase:
// back to the initial lr first, then down); cosine or linear annealing; the momentum, or Adam's
// beta1, cycles inversely between max_momentum and base_momentum
// (torch.optim.lr_scheduler.OneCycleLR). Step it once per batch; counted as LRScheduler counts,
// so step() may be called total_steps + 1 times (PyTorch: total_steps after its constructor).
#include <optional>
#include <string>

#include "ember/nn/arg.h"
#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

// Per-group values take one number for all groups or one per group. The length is total_steps,
// or epochs * steps_per_epoch.
class EMBER_API OneCycleLROptions {
 public:
  OneCycleLROptions(std::vector<double> max_lr) : max_lr_(std::move(max_lr)) {}
  EMBER_ARG(std::vector<double>, max_lr);
  EMBER_ARG(std::optional<int64_t>, total_steps);
  EMBER_ARG(std::optional<int64_t>, epochs);
  EMBER_ARG(std::optional<int64_t>, steps_per_epoch);
  EMBER_ARG(double, pct_start) = 0.3;
  // "cos" or "linear".
  EMBER_ARG(std::string, anneal_strategy) = "cos";
  // Needs an optimizer with a "momentum" option or betas (Adam, AdamW).
  EMBER_ARG(bool, cycle_momentum) = true;
  EMBER_ARG(std::vector<double>, base_momentum) = {0.85};
  EMBER_ARG(std::vector<double>, max_momentum) = {0.95};
  EMBER_ARG(double, div_factor) = 25.;
  EMBER_ARG(double, final_div_factor) = 1e4;
  EMBER_ARG(bool, three_phase) = false;
};

class EMBER_API OneCycleLR : public LRScheduler {
 public:
  // Throws ValueError (PyTorch's texts) for a missing or non-positive length, pct_start outside
  // [0, 1], an unknown anneal_strategy, cycle_momentum without momentum, or per-group lists of
  // the wrong length.
  OneCycleLR(Optimizer& optimizer, OneCycleLROptions options);
  int64_t total_steps() const { return total_steps_; }

 protected:
  // Throws ValueError once stepped past total_steps; also sets each group's momentum.
  std::vector<double> get_lrs() override;

 private:
  // The value a phase starts or ends at, per group.
  enum class Level { initial_lr, max_lr, min_lr, max_momentum, base_momentum };
  struct Phase {
    double end_step;
    Level start_lr, end_lr, start_momentum, end_momentum;
  };
  double level(Level which, size_t group) const;
  double anneal(double start, double end, double pct) const;

  OneCycleLROptions options_;
  int64_t total_steps_;
  std::vector<Phase> phases_;
  std::vector<double> initial_lrs_, max_lrs_, min_lrs_, max_momentums_, base_momentums_;
  std::string momentum_name_;
};

}  // namespace ember::optim
