// SequentialLR: torch.optim.lr_scheduler.SequentialLR, with the wrapped schedulers unstepped
// until their turn (their constructors changed nothing, see LRScheduler).
#include "ember/optim/sequential_lr.h"

#include <algorithm>

namespace ember::optim {

SequentialLR::SequentialLR(Optimizer& optimizer,
                           std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones)
    : LRScheduler(optimizer),
      schedulers_(std::move(schedulers)),
      milestones_(std::move(milestones)) {
  EMBER_CHECK(!schedulers_.empty(), ValueError, "SequentialLR needs at least one scheduler");
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    EMBER_CHECK(&schedulers_[i]->optimizer() == &optimizer, ValueError,
                "Sequential Schedulers expects all schedulers to belong to the same optimizer, but "
                "got schedulers at index ",
                i, " to be different than the optimizer passed in.");
    EMBER_CHECK(schedulers_[i]->step_count() == 0, ValueError,
                "SequentialLR: the scheduler at index ", i, " was stepped ",
                schedulers_[i]->step_count(),
                " times already; SequentialLR starts each one itself");
  }
  EMBER_CHECK(milestones_.size() + 1 == schedulers_.size(), ValueError,
              "Sequential Schedulers expects number of schedulers provided to be one more than the "
              "number of milestone points, but got number of schedulers ",
              schedulers_.size(), " and the number of milestones to be equal to ",
              milestones_.size());
}

void SequentialLR::step() {
  check_group_count();
  ++last_epoch_;
  ++step_count_;
  if (last_epoch_ == 0) {
    // PyTorch's constructor: the initial lrs, then the first scheduler's first step.
    set_lrs(base_lrs_);
    schedulers_[0]->step();
    last_lr_ = schedulers_[0]->get_last_lr();
    return;
  }
  const auto idx = static_cast<size_t>(
      std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin());
  LRScheduler& scheduler = *schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_) {
    scheduler.step_to(0);
  } else {
    scheduler.step();
  }
  last_lr_ = scheduler.get_last_lr();
}

}  // namespace ember::optim
