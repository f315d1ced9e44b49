// NAdam's and RAdam's steps in one pass over float32 CPU memory (fused_cpu.h): the composite
// steps in nadam.cpp and radam.cpp make six to nine passes with temporaries; these loops do the
// same float operations per element, so results match the composite bit for bit.
#include <cmath>

#include "optim/fused_cpu.h"

namespace ember::optim::detail {

namespace {

bool qualifies(const Tensor& t, const Tensor& like) {
  return t.defined() && t.is_cpu() && t.dtype() == kFloat && t.is_contiguous() &&
         t.numel() == like.numel();
}

bool all_qualify(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v) {
  return qualifies(p, p) && qualifies(g, p) && qualifies(m, p) && qualifies(v, p);
}

void bump_versions(Tensor& p, Tensor& m, Tensor& v) {
  p.bump_version();
  m.bump_version();
  v.bump_version();
}

}  // namespace

bool fused_nadam_cpu(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                     const NAdamStepConstants& k) {
  if (!all_qualify(param, grad, exp_avg, exp_avg_sq)) return false;
  float* p = param.data_ptr<float>();
  const float* g = grad.data_ptr<float>();
  float* m = exp_avg.data_ptr<float>();
  float* v = exp_avg_sq.data_ptr<float>();
  // Scalars are rounded to float once, as the composite's wrapped scalars are.
  const float b1 = static_cast<float>(k.beta1), one_b1 = static_cast<float>(1 - k.beta1);
  const float b2 = static_cast<float>(k.beta2), one_b2 = static_cast<float>(1 - k.beta2);
  const float bc2 = static_cast<float>(k.bias_correction2), eps = static_cast<float>(k.eps);
  const float wd = static_cast<float>(k.weight_decay);
  const float grad_scale = static_cast<float>(k.grad_scale);
  const float avg_scale = static_cast<float>(k.avg_scale);
  const bool decay = k.weight_decay != 0;
  const int64_t n = param.numel();
#pragma omp parallel for if (n > 65536) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float gi = decay ? g[i] + wd * p[i] : g[i];
    const float mi = m[i] * b1 + one_b1 * gi;
    const float vi = v[i] * b2 + one_b2 * (gi * gi);
    const float denom = std::sqrt(vi / bc2) + eps;
    float pi = p[i] + grad_scale * (gi / denom);
    pi = pi + avg_scale * (mi / denom);
    m[i] = mi;
    v[i] = vi;
    p[i] = pi;
  }
  bump_versions(param, exp_avg, exp_avg_sq);
  return true;
}

bool fused_radam_cpu(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                     const RAdamStepConstants& k) {
  if (!all_qualify(param, grad, exp_avg, exp_avg_sq)) return false;
  float* p = param.data_ptr<float>();
  const float* g = grad.data_ptr<float>();
  float* m = exp_avg.data_ptr<float>();
  float* v = exp_avg_sq.data_ptr<float>();
  const float b1 = static_cast<float>(k.beta1), one_b1 = static_cast<float>(1 - k.beta1);
  const float b2 = static_cast<float>(k.beta2), one_b2 = static_cast<float>(1 - k.beta2);
  const float bc1 = static_cast<float>(k.bias_correction1);
  const float bc2_sqrt = static_cast<float>(k.bias_correction2_sqrt);
  const float eps = static_cast<float>(k.eps), wd = static_cast<float>(k.weight_decay);
  const float lr = static_cast<float>(k.lr), rect = static_cast<float>(k.rect);
  const bool decay = k.weight_decay != 0, rectified = k.rectified;
  const int64_t n = param.numel();
#pragma omp parallel for if (n > 65536) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float gi = decay ? g[i] + wd * p[i] : g[i];
    const float mi = m[i] * b1 + one_b1 * gi;
    const float vi = v[i] * b2 + one_b2 * (gi * gi);
    const float corrected = mi / bc1;
    float update = corrected * lr;
    if (rectified) update = update * (bc2_sqrt / (std::sqrt(vi) + eps)) * rect;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i] + -1.0f * update;
  }
  bump_versions(param, exp_avg, exp_avg_sq);
  return true;
}

}  // namespace ember::optim::detail
