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

void LRScheduler::check_group_count() const {
  const size_t groups = optimizer_.param_groups().size();
  EMBER_CHECK(groups == base_lrs_.size(), ValueError, "the optimizer has ", groups,
              " parameter groups but the scheduler was created for ", base_lrs_.size(),
              " (add groups before creating the scheduler)");
}

void LRScheduler::set_lrs(const std::vector<double>& lrs) {
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
  last_lr_ = lrs;
}

void LRScheduler::step() {
  check_group_count();
  // libtorch's LRScheduler::step(): the lrs of the next epoch, then step_count_ + 1.
  ++last_epoch_;
  set_lrs(get_lrs());
  ++step_count_;
}

void LRScheduler::step_to(int64_t epoch) {
  check_group_count();
  last_epoch_ = epoch;
  set_lrs(closed_form_lrs());
  ++step_count_;
}

namespace detail {

std::vector<double> per_group(const std::vector<double>& values, size_t groups, const char* what) {
  if (values.size() == 1) return std::vector<double>(groups, values[0]);
  EMBER_CHECK(values.size() == groups, ValueError, "expected ", groups, " values for ", what,
              ", got ", values.size());
  return values;
}

}  // namespace detail

}  // namespace ember::optim
