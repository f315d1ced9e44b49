#pragma once
// Learning-rate schedulers that count steps as libtorch's C++ schedulers do (a renamed libtorch
// program must train the same): constructing one records each group's lr as its base lr and
// changes nothing; the n-th call of step() sets the schedule's value at epoch n - 1. So the first
// step() keeps the initial lr, and after n calls the lr is PyTorch (Python)'s value after n - 1
// (torch.optim.lr_scheduler counts its constructor as a step; libtorch does not).
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  // Writes the lrs of epoch step_count() into the optimizer's groups, then counts the step.
  void step();
  // The lrs the last step() set, one per group (the initial lrs before any step()).
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  // The epoch whose lrs the last step() set (-1 before any step()), and the number of step() calls.
  int64_t last_epoch() const { return last_epoch_; }
  int64_t step_count() const { return step_count_; }

 protected:
  explicit LRScheduler(Optimizer& optimizer);
  // The lrs for epoch last_epoch_ == step_count_ (already set), from the groups' current lrs:
  // libtorch's names, so a scheduler written for libtorch (get_lrs() from get_current_lrs() and
  // step_count_) compiles after the rename. The recursions are PyTorch's chainable get_lr().
  virtual std::vector<double> get_lrs() = 0;
  std::vector<double> get_current_lrs() const;

  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
  int64_t last_epoch_ = -1;
  int64_t step_count_ = 0;
};

}  // namespace ember::optim
