// StepLR: libtorch's torch::optim::StepLR (epoch 0 and every epoch not a multiple of step_size
// keep the current lrs; the others multiply them by gamma).
#include "ember/optim/step_lr.h"

#include <cmath>

namespace ember::optim {

StepLR::StepLR(Optimizer& optimizer, unsigned step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK(step_size >= 1, ValueError, "StepLR: step_size must be at least 1, got ", step_size);
}

std::vector<double> StepLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::vector<double> StepLR::closed_form_lrs() {
  std::vector<double> lrs;
  const double factor = std::pow(gamma_, static_cast<double>(last_epoch_ / step_size_));
  for (double base : base_lrs_) lrs.push_back(base * factor);
  return lrs;
}

}  // namespace ember::optim
