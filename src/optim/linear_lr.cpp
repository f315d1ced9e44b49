// LinearLR: torch.optim.lr_scheduler.LinearLR's chainable and closed forms.
#include "ember/optim/linear_lr.h"

#include <algorithm>

namespace ember::optim {

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor,
                   int64_t total_iters)
    : LRScheduler(optimizer),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  EMBER_CHECK(start_factor >= 0 && start_factor <= 1.0, ValueError,
              "Starting multiplicative factor expected to be between 0 and 1, got ", start_factor);
  EMBER_CHECK(end_factor >= 0 && end_factor <= 1.0, ValueError,
              "Ending multiplicative factor expected to be between 0 and 1, got ", end_factor);
}

std::vector<double> LinearLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= start_factor_;
    return lrs;
  }
  if (last_epoch_ > total_iters_) return lrs;
  // This epoch's factor over the previous one's.
  const double delta = end_factor_ - start_factor_;
  const double ratio =
      1. + delta / (total_iters_ * start_factor_ + static_cast<double>(last_epoch_ - 1) * delta);
  for (double& lr : lrs) lr *= ratio;
  return lrs;
}

std::vector<double> LinearLR::closed_form_lrs() {
  const double progress =
      static_cast<double>(std::min(total_iters_, last_epoch_)) / static_cast<double>(total_iters_);
  std::vector<double> lrs;
  for (double base : base_lrs_) {
    lrs.push_back(base * (start_factor_ + (end_factor_ - start_factor_) * progress));
  }
  return lrs;
}

}  // namespace ember::optim
