// CosineAnnealingLR: torch.optim.lr_scheduler.CosineAnnealingLR's recursive form, counted in
// libtorch's steps (LRScheduler; libtorch 1.13 itself has no cosine scheduler).
#include "ember/optim/cosine_annealing_lr.h"

#include <cmath>

namespace ember::optim {

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK(T_max >= 1, ValueError, "CosineAnnealingLR: T_max must be at least 1, got ", T_max);
}

std::vector<double> CosineAnnealingLR::get_lrs() {
  const double pi = M_PI;
  const double T = static_cast<double>(T_max_);
  const int64_t e = last_epoch_;
  std::vector<double> lrs = get_current_lrs();
  if (e == 0) return lrs;
  // Python's % (floor modulo): (e - 1 - T_max) is negative for the first T_max epochs.
  const int64_t period = 2 * T_max_;
  const int64_t phase = (((e - 1 - T_max_) % period) + period) % period;
  for (size_t i = 0; i < lrs.size(); ++i) {
    const double base = base_lrs_[i];
    if (phase == 0) {
      lrs[i] = lrs[i] + (base - eta_min_) * (1 - std::cos(pi / T)) / 2;
    } else {
      lrs[i] = (1 + std::cos(pi * e / T)) / (1 + std::cos(pi * (e - 1) / T)) * (lrs[i] - eta_min_) +
               eta_min_;
    }
  }
  return lrs;
}

std::vector<double> CosineAnnealingLR::closed_form_lrs() {
  std::vector<double> lrs;
  const double phase = (1 + std::cos(M_PI * last_epoch_ / static_cast<double>(T_max_))) / 2;
  for (double base : base_lrs_) lrs.push_back(eta_min_ + (base - eta_min_) * phase);
  return lrs;
}

}  // namespace ember::optim
