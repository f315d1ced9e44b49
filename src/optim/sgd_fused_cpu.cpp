// SGD's step in one pass over float32 CPU memory (fused_cpu.h): the composite in sgd.cpp makes
// two to five passes; this loop does the same float operations per element, so results match it
// bit for bit.
#include "optim/fused_cpu.h"

namespace ember::optim::detail {

namespace {

bool qualifies(const Tensor& t, const Tensor& like) {
  return t.defined() && t.is_cpu() && t.dtype() == kFloat && t.is_contiguous() &&
         t.numel() == like.numel();
}

// With and without momentum apart, so that neither loop has a conditional store left and both
// vectorize.
template <bool kMomentum>
void sgd_loop(float* __restrict p, const float* __restrict g, float* __restrict buf, int64_t n,
              const SGDStepConstants& k) {
  // Scalars are rounded to float once, as the composite's wrapped scalars are.
  const float wd = static_cast<float>(k.weight_decay), momentum = static_cast<float>(k.momentum);
  const float one_damp = static_cast<float>(1 - k.dampening), neg_lr = static_cast<float>(-k.lr);
  const bool decay = k.weight_decay != 0, maximize = k.maximize;
  const bool first = k.first, nesterov = k.nesterov;
#pragma omp parallel for if (n > 65536) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float gi = maximize ? -g[i] : g[i];
    float di = decay ? gi + wd * p[i] : gi;
    if constexpr (kMomentum) {
      const float bi = first ? di : buf[i] * momentum + one_damp * di;
      buf[i] = bi;
      di = nesterov ? di + momentum * bi : bi;
    }
    p[i] = p[i] + neg_lr * di;
  }
}

}  // namespace

bool fused_sgd_cpu(Tensor& param, const Tensor& grad, Tensor& momentum_buffer,
                   const SGDStepConstants& k) {
  const bool has_momentum = momentum_buffer.defined();
  if (!qualifies(param, param) || !qualifies(grad, param) ||
      (has_momentum && !qualifies(momentum_buffer, param))) {
    return false;
  }
  float* p = param.data_ptr<float>();
  const float* g = grad.data_ptr<float>();
  const int64_t n = param.numel();
  if (has_momentum) {
    sgd_loop<true>(p, g, momentum_buffer.data_ptr<float>(), n, k);
    momentum_buffer.bump_version();
  } else {
    sgd_loop<false>(p, g, nullptr, n, k);
  }
  param.bump_version();
  return true;
}

}  // namespace ember::optim::detail
