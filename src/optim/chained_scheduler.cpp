// ChainedScheduler: torch.optim.lr_scheduler.ChainedScheduler.
#include "ember/optim/chained_scheduler.h"

namespace ember::optim {

namespace {

Optimizer& first_optimizer(const std::vector<std::shared_ptr<LRScheduler>>& schedulers) {
  EMBER_CHECK(!schedulers.empty(), ValueError, "ChainedScheduler needs at least one scheduler");
  return schedulers[0]->optimizer();
}

}  // namespace

ChainedScheduler::ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers)
    : LRScheduler(first_optimizer(schedulers)), schedulers_(std::move(schedulers)) {
  for (size_t i = 1; i < schedulers_.size(); ++i) {
    EMBER_CHECK(&schedulers_[i]->optimizer() == &optimizer_, ValueError,
                "ChainedScheduler expects all schedulers to belong to the same optimizer, but got "
                "schedulers at index 0 and ",
                i, " to be different");
  }
}

void ChainedScheduler::step() {
  check_group_count();
  for (auto& scheduler : schedulers_) scheduler->step();
  ++last_epoch_;
  ++step_count_;
  last_lr_ = get_current_lrs();
}

}  // namespace ember::optim
