// MultiStepLR: torch.optim.lr_scheduler.MultiStepLR (milestones counted as a Counter).
#include "ember/optim/multi_step_lr.h"

#include <cmath>

namespace ember::optim {

MultiStepLR::MultiStepLR(Optimizer& optimizer, const std::vector<int64_t>& milestones, double gamma)
    : LRScheduler(optimizer), gamma_(gamma) {
  for (int64_t m : milestones) ++milestone_counts_[m];
}

std::vector<double> MultiStepLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  auto it = milestone_counts_.find(last_epoch_);
  if (it == milestone_counts_.end()) return lrs;
  const double factor = std::pow(gamma_, static_cast<double>(it->second));
  for (double& lr : lrs) lr *= factor;
  return lrs;
}

std::vector<double> MultiStepLR::closed_form_lrs() {
  // The milestones passed: those at or before this epoch, with their multiplicity.
  int64_t passed = 0;
  for (const auto& [epoch, count] : milestone_counts_) {
    if (epoch <= last_epoch_) passed += count;
  }
  const double factor = std::pow(gamma_, static_cast<double>(passed));
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * factor);
  return lrs;
}

}  // namespace ember::optim
