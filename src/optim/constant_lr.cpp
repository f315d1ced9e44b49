// ConstantLR: torch.optim.lr_scheduler.ConstantLR's chainable and closed forms.
#include "ember/optim/constant_lr.h"

namespace ember::optim {

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters)
    : LRScheduler(optimizer), factor_(factor), total_iters_(total_iters) {
  EMBER_CHECK(factor >= 0 && factor <= 1.0, ValueError,
              "Constant multiplicative factor expected to be between 0 and 1, got ", factor);
}

std::vector<double> ConstantLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= factor_;
  } else if (last_epoch_ == total_iters_) {
    for (double& lr : lrs) lr *= 1.0 / factor_;
  }
  return lrs;
}

std::vector<double> ConstantLR::closed_form_lrs() {
  const double done = last_epoch_ >= total_iters_ ? 1.0 : 0.0;
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * (factor_ + done * (1 - factor_)));
  return lrs;
}

}  // namespace ember::optim
