// ReduceLROnPlateauScheduler: torch.optim.lr_scheduler.ReduceLROnPlateau's step(metrics).
#include "ember/optim/reduce_lr_on_plateau.h"

#include <algorithm>
#include <limits>

namespace ember::optim {

ReduceLROnPlateauScheduler::ReduceLROnPlateauScheduler(
    Optimizer& optimizer, SchedulerMode mode, double factor, int64_t patience, double threshold,
    ThresholdMode threshold_mode, int64_t cooldown, const std::vector<double>& min_lr, double eps)
    : optimizer_(optimizer),
      mode_(mode),
      factor_(factor),
      patience_(patience),
      threshold_(threshold),
      threshold_mode_(threshold_mode),
      cooldown_(cooldown),
      eps_(eps) {
  EMBER_CHECK(factor < 1.0, ValueError, "Factor should be < 1.0., got ", factor);
  const size_t groups = optimizer.param_groups().size();
  if (min_lr.empty()) {
    min_lrs_.assign(groups, 0.0);
  } else if (min_lr.size() == 1) {
    min_lrs_.assign(groups, min_lr[0]);
  } else {
    EMBER_CHECK(min_lr.size() == groups, ValueError, "expected ", groups, " min_lrs, got ",
                min_lr.size());
    min_lrs_ = min_lr;
  }
  const double inf = std::numeric_limits<double>::infinity();
  best_ = mode == SchedulerMode::min ? inf : -inf;
  for (const auto& g : optimizer.param_groups()) last_lr_.push_back(g.options().get_lr());
}

bool ReduceLROnPlateauScheduler::is_better(double a) const {
  if (mode_ == SchedulerMode::min) {
    return threshold_mode_ == ThresholdMode::rel ? a < best_ * (1. - threshold_)
                                                 : a < best_ - threshold_;
  }
  return threshold_mode_ == ThresholdMode::rel ? a > best_ * (threshold_ + 1.)
                                               : a > best_ + threshold_;
}

void ReduceLROnPlateauScheduler::step(double metric) {
  auto& groups = optimizer_.param_groups();
  EMBER_CHECK(groups.size() == min_lrs_.size(), ValueError, "the optimizer has ", groups.size(),
              " parameter groups but the scheduler was created for ", min_lrs_.size(),
              " (add groups before creating the scheduler)");
  ++last_epoch_;
  if (is_better(metric)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    num_bad_epochs_ = 0;  // bad epochs in the cooldown do not count
  }
  if (num_bad_epochs_ > patience_) {
    for (size_t i = 0; i < groups.size(); ++i) {
      const double old_lr = groups[i].options().get_lr();
      const double new_lr = std::max(old_lr * factor_, min_lrs_[i]);
      if (old_lr - new_lr > eps_) groups[i].options().set_lr(new_lr);
    }
    cooldown_counter_ = cooldown_;
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const auto& g : groups) last_lr_.push_back(g.options().get_lr());
}

}  // namespace ember::optim
