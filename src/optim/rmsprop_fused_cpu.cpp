// RMSprop's step in one pass over float32 CPU memory (fused_cpu.h): the composite in
// rmsprop.cpp makes five to eight passes with temporaries; this loop does the same float
// operations per element, so results match it bit for bit.
#include <cmath>

#include "optim/fused_cpu.h"

namespace ember::optim::detail {

namespace {

bool qualifies(const Tensor& t, const Tensor& like) {
  return t.defined() && t.is_cpu() && t.dtype() == kFloat && t.is_contiguous() &&
         t.numel() == like.numel();
}

struct Arrays {
  float* p;
  const float* g;
  float* sq;
  float* ga;   // centered only
  float* buf;  // momentum only
};

// The loop for one combination of centered and momentum, so that it has no branches left and
// the compiler vectorizes it (sqrt included) as it does Adam's.
template <bool kCentered, bool kMomentum>
void rmsprop_loop(const Arrays& a, int64_t n, const RMSpropStepConstants& k) {
  // Scalars are rounded to float once, as the composite's wrapped scalars are.
  const float alpha = static_cast<float>(k.alpha), one_alpha = static_cast<float>(1 - k.alpha);
  const float eps = static_cast<float>(k.eps), wd = static_cast<float>(k.weight_decay);
  const float momentum = static_cast<float>(k.momentum), neg_lr = static_cast<float>(-k.lr);
  const bool decay = k.weight_decay != 0, maximize = k.maximize;
  float* __restrict p = a.p;
  const float* __restrict g = a.g;
  float* __restrict sq = a.sq;
  float* __restrict ga = a.ga;
  float* __restrict buf = a.buf;
#pragma omp parallel for if (n > 65536) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float gm = maximize ? -g[i] : g[i];
    const float gi = decay ? gm + wd * p[i] : gm;
    const float sqi = sq[i] * alpha + one_alpha * (gi * gi);
    sq[i] = sqi;
    float avg;
    if constexpr (kCentered) {
      const float gai = ga[i] * alpha + one_alpha * gi;
      ga[i] = gai;
      avg = std::sqrt(sqi - gai * gai) + eps;
    } else {
      avg = std::sqrt(sqi) + eps;
    }
    if constexpr (kMomentum) {
      const float bi = buf[i] * momentum + gi / avg;
      buf[i] = bi;
      p[i] = p[i] + neg_lr * bi;
    } else {
      p[i] = p[i] + neg_lr * (gi / avg);
    }
  }
}

}  // namespace

bool fused_rmsprop_cpu(Tensor& param, const Tensor& grad, Tensor& square_avg, Tensor& grad_avg,
                       Tensor& momentum_buffer, const RMSpropStepConstants& k) {
  const bool centered = grad_avg.defined(), has_momentum = momentum_buffer.defined();
  if (!qualifies(param, param) || !qualifies(grad, param) || !qualifies(square_avg, param) ||
      (centered && !qualifies(grad_avg, param)) ||
      (has_momentum && !qualifies(momentum_buffer, param))) {
    return false;
  }
  const Arrays a{param.data_ptr<float>(), grad.data_ptr<float>(), square_avg.data_ptr<float>(),
                 centered ? grad_avg.data_ptr<float>() : nullptr,
                 has_momentum ? momentum_buffer.data_ptr<float>() : nullptr};
  const int64_t n = param.numel();
  if (centered && has_momentum) rmsprop_loop<true, true>(a, n, k);
  if (centered && !has_momentum) rmsprop_loop<true, false>(a, n, k);
  if (!centered && has_momentum) rmsprop_loop<false, true>(a, n, k);
  if (!centered && !has_momentum) rmsprop_loop<false, false>(a, n, k);
  param.bump_version();
  square_avg.bump_version();
  if (centered) grad_avg.bump_version();
  if (has_momentum) momentum_buffer.bump_version();
  return true;
}

}  // namespace ember::optim::detail
