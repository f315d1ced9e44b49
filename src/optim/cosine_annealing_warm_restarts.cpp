// CosineAnnealingWarmRestarts: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts's step(),
// which tracks T_cur and T_i itself (whole steps, or a given, possibly fractional, epoch).
#include "ember/optim/cosine_annealing_warm_restarts.h"

#include <cmath>

namespace ember::optim {

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0,
                                                         int64_t T_mult, double eta_min)
    : LRScheduler(optimizer), T_0_(T_0), T_i_(T_0), T_mult_(T_mult), eta_min_(eta_min) {
  EMBER_CHECK(T_0 > 0, ValueError, "Expected positive integer T_0, but got ", T_0);
  EMBER_CHECK(T_mult >= 1, ValueError, "Expected integer T_mult >= 1, but got ", T_mult);
}

std::vector<double> CosineAnnealingWarmRestarts::get_lrs() {
  const double phase = (1 + std::cos(M_PI * T_cur_ / static_cast<double>(T_i_))) / 2;
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(eta_min_ + (base - eta_min_) * phase);
  return lrs;
}

void CosineAnnealingWarmRestarts::step() {
  if (last_epoch_ < 0) {
    step_to(0.0);
    return;
  }
  check_group_count();
  ++last_epoch_;
  T_cur_ += 1;
  if (T_cur_ >= static_cast<double>(T_i_)) {
    T_cur_ -= static_cast<double>(T_i_);
    T_i_ *= T_mult_;
  }
  set_lrs(get_lrs());
  ++step_count_;
}

void CosineAnnealingWarmRestarts::step_to(double epoch) {
  EMBER_CHECK(epoch >= 0, ValueError, "Expected non-negative epoch, but got ", epoch);
  check_group_count();
  const double T_0 = static_cast<double>(T_0_);
  if (epoch >= T_0) {
    if (T_mult_ == 1) {
      T_cur_ = std::fmod(epoch, T_0);
    } else {
      // The restart n with T_0 * (T_mult^n - 1) / (T_mult - 1) <= epoch.
      const double mult = static_cast<double>(T_mult_);
      const auto n = static_cast<int64_t>(std::log(epoch / T_0 * (mult - 1) + 1) / std::log(mult));
      int64_t power = 1;
      for (int64_t i = 0; i < n; ++i) power *= T_mult_;
      T_cur_ = epoch - static_cast<double>(T_0_ * (power - 1)) / (mult - 1);
      T_i_ = T_0_ * power;
    }
  } else {
    T_i_ = T_0_;
    T_cur_ = epoch;
  }
  last_epoch_ = static_cast<int64_t>(std::floor(epoch));
  set_lrs(get_lrs());
  ++step_count_;
}

}  // namespace ember::optim
