// Mixed-precision kernels for amp::GradScaler on the CPU: the fused unscale + non-finite check
// over a list of gradients, and the scale update (kernel_math/scaling_math.h has the arithmetic,
// shared with the CUDA kernels).
#include <cmath>

#include "cpu/cpu_backend.h"
#include "kernel_math/dispatch.h"
#include "kernel_math/scaling_math.h"

namespace ember::cpu {
namespace {

// Unscales p[0, n) in place; true when any element was inf or NaN.
template <typename T>
bool unscale_and_check(T* p, int64_t n, float inv_scale) {
  bool bad = false;
#pragma omp parallel for if (n > 65536) schedule(static) reduction(|| : bad)
  for (int64_t i = 0; i < n; ++i) {
    const acc_t<T> v = static_cast<acc_t<T>>(p[i]);
    bad = bad || !std::isfinite(v);
    p[i] = static_cast<T>(amp::unscaled(v, inv_scale));
  }
  return bad;
}

}  // namespace

void CpuBackend::non_finite_check_and_unscale(const std::vector<Tensor>& grads,
                                              const Tensor& found_inf, const Tensor& inv_scale) {
  if (grads.empty()) return;
  const float inv = inv_scale.data_ptr<float>()[0];
  bool any_non_finite = false;
  EMBER_DISPATCH_FLOATING(grads[0].dtype(), "non_finite_check_and_unscale", [&] {
    for (const Tensor& g : grads) {
      if (unscale_and_check(g.data_ptr<scalar_t>(), g.numel(), inv)) any_non_finite = true;
      g.bump_version();
    }
  });
  if (any_non_finite) found_inf.data_ptr<float>()[0] = 1.0f;
}

void CpuBackend::update_scale(const Tensor& scale, const Tensor& growth_tracker,
                              const Tensor& found_inf, double growth_factor, double backoff_factor,
                              int64_t growth_interval) {
  amp::update_scale_value(scale.data_ptr<float>(), growth_tracker.data_ptr<int32_t>(),
                          found_inf.data_ptr<float>(), growth_factor, backoff_factor,
                          static_cast<int32_t>(growth_interval));
}

}  // namespace ember::cpu
