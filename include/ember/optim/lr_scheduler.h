#pragma once
// Learning-rate schedulers with PyTorch's semantics: constructing one records each group's
// initial lr as its base lr and counts as the first step (last_epoch 0), so after n calls of
// step() the lr is the schedule's value at epoch n, as torch.optim.lr_scheduler gives.
// (libtorch's own schedulers skip that initial step and lag PyTorch by one epoch.)
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  // Advances one epoch and writes the new lrs into the optimizer's groups.
  void step();
  // The lrs the last step() set, one per group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  int64_t last_epoch() const { return last_epoch_; }

 protected:
  explicit LRScheduler(Optimizer& optimizer);
  // Derived constructors call this once their own fields are set (the initial step).
  void initialize();
  // The lrs for epoch last_epoch_ (already advanced), from the groups' current lrs (chainable
  // form, as PyTorch's get_lr()).
  virtual std::vector<double> get_lr() = 0;
  std::vector<double> current_lrs() const;

  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
  int64_t last_epoch_ = -1;
  int64_t step_count_ = 0;
};

}  // namespace ember::optim
