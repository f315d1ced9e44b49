#pragma once
// The Adam/AdamW per-parameter update shared by adam.cpp and adamw.cpp.
#include "ember/optim/adam.h"

namespace ember::optim::detail {

// One update of `param` with moments in `state` (created on the first call); decoupled selects
// AdamW's weight decay (p *= 1 - lr * wd) over Adam's (g += wd * p). Caller holds NoGradGuard.
void adam_update(Tensor& param, const Tensor& grad, AdamParamState& state, double lr, double beta1,
                 double beta2, double eps, double weight_decay, bool amsgrad, bool decoupled);

// Checks the options Adam and AdamW share, naming the bad value.
void validate_adam_options(double lr, double beta1, double beta2, double eps, double weight_decay);

}  // namespace ember::optim::detail
