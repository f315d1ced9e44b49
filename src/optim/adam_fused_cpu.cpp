// One pass of the Adam/AdamW update over float32 CPU memory. It performs exactly the float
// operations of the composite in adam.cpp, in the same order (so results match it bit for bit),
// but reads and writes each array once instead of in nine passes with temporaries.
#include <cmath>

#include "optim/adam_update.h"

namespace ember::optim::detail {

namespace {
bool qualifies(const Tensor& t, const Tensor& like) {
  return t.defined() && t.is_cpu() && t.dtype() == kFloat && t.is_contiguous() &&
         t.numel() == like.numel();
}
}  // namespace

bool fused_adam_cpu(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                    const AdamStepConstants& k) {
  if (!qualifies(param, param) || !qualifies(grad, param) || !qualifies(exp_avg, param) ||
      !qualifies(exp_avg_sq, param)) {
    return false;
  }
  float* p = param.data_ptr<float>();
  const float* g = grad.data_ptr<float>();
  float* m = exp_avg.data_ptr<float>();
  float* v = exp_avg_sq.data_ptr<float>();
  // Scalars are rounded to float once, as the composite's wrapped scalars are.
  const float b1 = static_cast<float>(k.beta1), one_b1 = static_cast<float>(1 - k.beta1);
  const float b2 = static_cast<float>(k.beta2), one_b2 = static_cast<float>(1 - k.beta2);
  const float wd = static_cast<float>(k.weight_decay);
  const float decay = static_cast<float>(1 - k.lr * k.weight_decay);
  const float eps = static_cast<float>(k.eps_scaled), alpha = static_cast<float>(k.step_scale);
  const bool coupled = k.weight_decay != 0 && !k.decoupled;
  const bool decoupled = k.weight_decay != 0 && k.decoupled;
  const int64_t n = param.numel();
#pragma omp parallel for if (n > 65536) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    float gi = coupled ? g[i] + wd * p[i] : g[i];
    float pi = decoupled ? p[i] * decay : p[i];
    float mi = m[i] * b1 + one_b1 * gi;
    float vi = v[i] * b2 + one_b2 * (gi * gi);
    m[i] = mi;
    v[i] = vi;
    p[i] = pi + alpha * (mi / (std::sqrt(vi) + eps));
  }
  param.bump_version();
  exp_avg.bump_version();
  exp_avg_sq.bump_version();
  return true;
}

}  // namespace ember::optim::detail
