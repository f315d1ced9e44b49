// LRScheduler: base lrs, and writing each epoch's lrs into the groups with libtorch's step count.
#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  for (const auto& g : optimizer_.param_groups()) base_lrs_.push_back(g.options().get_lr());
  last_lr_ = base_lrs_;
}

std::vector<double> LRScheduler::get_current_lrs() const {
  std::vector<double> lrs;
  for (const auto& g : optimizer_.param_groups()) lrs.push_back(g.options().get_lr());
  return lrs;
}

void LRScheduler::step() {
  auto& groups = optimizer_.param_groups();
  EMBER_CHECK(groups.size() == base_lrs_.size(), ValueError, "the optimizer has ", groups.size(),
              " parameter groups but the scheduler was created for ", base_lrs_.size(),
              " (add groups before creating the scheduler)");
  // libtorch's LRScheduler::step(): the lrs of epoch step_count_, then step_count_ + 1.
  last_epoch_ = step_count_;
  std::vector<double> lrs = get_lrs();
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
  last_lr_ = std::move(lrs);
  ++step_count_;
}

}  // namespace ember::optim
