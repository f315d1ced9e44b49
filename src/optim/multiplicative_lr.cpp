// MultiplicativeLR: torch.optim.lr_scheduler.MultiplicativeLR's chainable get_lr (it has no
// closed form, so step_to() uses this one too).
#include "ember/optim/multiplicative_lr.h"

namespace ember::optim {

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, LRLambda lr_lambda)
    : LRScheduler(optimizer), lr_lambdas_(base_lrs_.size(), std::move(lr_lambda)) {}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, std::vector<LRLambda> lr_lambdas)
    : LRScheduler(optimizer),
      lr_lambdas_(detail::lambdas_per_group(std::move(lr_lambdas), base_lrs_.size())) {}

std::vector<double> MultiplicativeLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (last_epoch_ <= 0) return lrs;
  for (size_t i = 0; i < lrs.size(); ++i) lrs[i] *= lr_lambdas_[i](last_epoch_);
  return lrs;
}

}  // namespace ember::optim
