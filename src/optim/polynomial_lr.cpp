// PolynomialLR: torch.optim.lr_scheduler.PolynomialLR's chainable and closed forms.
#include "ember/optim/polynomial_lr.h"

#include <algorithm>
#include <cmath>

namespace ember::optim {

PolynomialLR::PolynomialLR(Optimizer& optimizer, int64_t total_iters, double power)
    : LRScheduler(optimizer), total_iters_(total_iters), power_(power) {
  // PyTorch divides by zero later (ZeroDivisionError); say so at construction instead.
  EMBER_CHECK(total_iters >= 1, ValueError, "PolynomialLR: total_iters must be at least 1, got ",
              total_iters);
}

std::vector<double> PolynomialLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (last_epoch_ == 0 || last_epoch_ > total_iters_) return lrs;
  const double t = static_cast<double>(last_epoch_), n = static_cast<double>(total_iters_);
  const double decay = std::pow((1.0 - t / n) / (1.0 - (t - 1) / n), power_);
  for (double& lr : lrs) lr *= decay;
  return lrs;
}

std::vector<double> PolynomialLR::closed_form_lrs() {
  const double progress =
      static_cast<double>(std::min(total_iters_, last_epoch_)) / static_cast<double>(total_iters_);
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(1.0 - progress, power_));
  return lrs;
}

}  // namespace ember::optim
