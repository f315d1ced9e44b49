// LambdaLR: torch.optim.lr_scheduler.LambdaLR's get_lr (a closed form already).
#include "ember/optim/lambda_lr.h"

namespace ember::optim {

namespace detail {

std::vector<LRLambda> lambdas_per_group(std::vector<LRLambda> lambdas, size_t groups) {
  EMBER_CHECK(lambdas.size() == groups, ValueError, "Expected ", groups, " lr_lambdas, but got ",
              lambdas.size());
  return lambdas;
}

}  // namespace detail

LambdaLR::LambdaLR(Optimizer& optimizer, LRLambda lr_lambda)
    : LRScheduler(optimizer), lr_lambdas_(base_lrs_.size(), std::move(lr_lambda)) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<LRLambda> lr_lambdas)
    : LRScheduler(optimizer),
      lr_lambdas_(detail::lambdas_per_group(std::move(lr_lambdas), base_lrs_.size())) {}

std::vector<double> LambdaLR::get_lrs() {
  std::vector<double> lrs;
  for (size_t i = 0; i < base_lrs_.size(); ++i) {
    lrs.push_back(base_lrs_[i] * lr_lambdas_[i](last_epoch_));
  }
  return lrs;
}

}  // namespace ember::optim
