#pragma once
// One-pass float32 CPU steps of NAdam and RAdam (nadam_radam_fused_cpu.cpp), RMSprop
// (rmsprop_fused_cpu.cpp) and SGD (sgd_fused_cpu.cpp), as fused_adam_cpu is Adam's
// (adam_update.h). Each performs exactly the
// float operations of its optimizer's composite step, in the same order, reading and writing every
// array once. They return false, doing nothing, unless every tensor is a contiguous float32 CPU
// tensor of the parameter's size; the composite covers every other device and dtype.
#include "ember/tensor.h"

namespace ember::optim::detail {

struct NAdamStepConstants {
  double beta1, beta2;
  double bias_correction2;  // 1 - beta2^t
  double eps, weight_decay;
  double grad_scale;  // -lr * (1 - mu_t) / (1 - prod_t)
  double avg_scale;   // -lr * mu_{t+1} / (1 - prod_t * mu_{t+1})
};

bool fused_nadam_cpu(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                     const NAdamStepConstants& k);

struct RAdamStepConstants {
  double beta1, beta2;
  double bias_correction1;       // 1 - beta1^t
  double bias_correction2_sqrt;  // sqrt(1 - beta2^t)
  double eps, weight_decay, lr;
  bool rectified;  // rho_t > 5: the adaptive step
  double rect;     // r_t
};

bool fused_radam_cpu(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                     const RAdamStepConstants& k);

struct RMSpropStepConstants {
  double lr, alpha, eps, weight_decay, momentum;
  bool maximize;
};

// grad_avg (centered) and momentum_buffer (momentum > 0) are undefined when not in use.
bool fused_rmsprop_cpu(Tensor& param, const Tensor& grad, Tensor& square_avg, Tensor& grad_avg,
                       Tensor& momentum_buffer, const RMSpropStepConstants& k);

struct SGDStepConstants {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize;
  bool first;  // the momentum buffer takes the gradient as it is (its first step)
};

// momentum_buffer is undefined without momentum; with momentum it is a tensor of the
// parameter's shape (uninitialized on the first step).
bool fused_sgd_cpu(Tensor& param, const Tensor& grad, Tensor& momentum_buffer,
                   const SGDStepConstants& k);

}  // namespace ember::optim::detail
