#pragma once
// The arithmetic of gradient scaling, compiled by g++ and nvcc alike (EMBER_HD), so the CPU and
// CUDA kernels compute the same values as PyTorch's (aten/src/ATen/native/cuda/AmpKernels.cu).
#include <math.h>

#include <cstdint>

#include "ember/macros.h"

namespace ember::amp {

// A gradient element times 1/scale in the accumulation type; a scale of 1 leaves it untouched.
template <typename Acc>
EMBER_HD_INLINE Acc unscaled(Acc v, float inv_scale) {
  return inv_scale == 1.f ? v : v * static_cast<Acc>(inv_scale);
}

// After an overflow (found_inf != 0): scale *= backoff_factor, tracker = 0. Otherwise one more
// clean step; after growth_interval of them: scale *= growth_factor (kept only if finite),
// tracker = 0.
EMBER_HD_INLINE void update_scale_value(float* scale, int32_t* growth_tracker,
                                        const float* found_inf, double growth_factor,
                                        double backoff_factor, int32_t growth_interval) {
  if (*found_inf) {
    *scale = static_cast<float>(*scale * backoff_factor);
    *growth_tracker = 0;
    return;
  }
  const int32_t successful = *growth_tracker + 1;
  if (successful == growth_interval) {
    const float grown = static_cast<float>(*scale * growth_factor);
    if (isfinite(grown)) *scale = grown;
    *growth_tracker = 0;
  } else {
    *growth_tracker = successful;
  }
}

}  // namespace ember::amp
