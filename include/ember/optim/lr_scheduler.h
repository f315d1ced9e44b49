#pragma once
// Learning-rate schedulers that count steps as libtorch's C++ schedulers do (a renamed libtorch
// program must train the same): constructing one records each group's lr as its base lr and
// changes nothing; the n-th call of step() sets the schedule's value at epoch n - 1. So the first
// step() keeps the initial lr, and after n calls the lr is PyTorch (Python)'s value after n - 1
// (torch.optim.lr_scheduler counts its constructor as a step; libtorch does not). Put otherwise:
// the first step() does what PyTorch's constructor does, and every later one what PyTorch's
// step() does, so schedulers that wrap others (SequentialLR, ChainedScheduler) compose the same.
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  // Writes the lrs of epoch last_epoch() + 1 into the optimizer's groups, then counts the step.
  virtual void step();
  // PyTorch's deprecated step(epoch): jumps to `epoch`, through the schedule's closed form where
  // PyTorch has one (else the chainable form at that epoch). SequentialLR starts each scheduler
  // with step_to(0) at its milestone, as PyTorch's does.
  virtual void step_to(int64_t epoch);
  // The lrs the last step() set, one per group (the initial lrs before any step()).
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  // The epoch whose lrs the last step() set (-1 before any step()), and the number of step() calls.
  int64_t last_epoch() const { return last_epoch_; }
  int64_t step_count() const { return step_count_; }
  Optimizer& optimizer() const { return optimizer_; }

 protected:
  explicit LRScheduler(Optimizer& optimizer);
  // The lrs for epoch last_epoch_ (already set), from the groups' current lrs: libtorch's names,
  // so a scheduler written for libtorch (get_lrs() from get_current_lrs() and step_count_)
  // compiles after the rename. The recursions are PyTorch's chainable get_lr().
  virtual std::vector<double> get_lrs() = 0;
  // PyTorch's _get_closed_form_lr() for epoch last_epoch_: the lrs from the base lrs alone.
  // Schedulers without one (PyTorch has none for them either) use get_lrs().
  virtual std::vector<double> closed_form_lrs() { return get_lrs(); }
  std::vector<double> get_current_lrs() const;
  // Writes `lrs` into the groups and records them as the last lrs.
  void set_lrs(const std::vector<double>& lrs);
  // Throws ValueError when a group was added after the scheduler was made.
  void check_group_count() const;

  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
  int64_t last_epoch_ = -1;
  int64_t step_count_ = 0;
};

namespace detail {
// A per-group argument given once for all groups or once per group (PyTorch's _format_param):
// `values` repeated for each of `groups` groups, or ValueError naming `what` and both counts.
std::vector<double> per_group(const std::vector<double>& values, size_t groups, const char* what);
}  // namespace detail

}  // namespace ember::optim
