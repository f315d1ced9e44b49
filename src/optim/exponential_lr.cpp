// ExponentialLR: torch.optim.lr_scheduler.ExponentialLR's chainable and closed forms.
#include "ember/optim/exponential_lr.h"

#include <cmath>

namespace ember::optim {

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma)
    : LRScheduler(optimizer), gamma_(gamma) {}

std::vector<double> ExponentialLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (last_epoch_ == 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::vector<double> ExponentialLR::closed_form_lrs() {
  std::vector<double> lrs;
  const double factor = std::pow(gamma_, static_cast<double>(last_epoch_));
  for (double base : base_lrs_) lrs.push_back(base * factor);
  return lrs;
}

}  // namespace ember::optim
