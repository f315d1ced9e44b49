#pragma once
// Softmax and log-softmax of one row, forward and backward, written once for both backends
// (EMBER_HD): the CPU runs these per row, the CUDA kernels use the same three-pass math per warp.
// A row has D elements `stride` apart; T is the storage type, Acc the type the math is done in.
//
//   softmax:      y = exp(x - max) / sum(exp(x - max))       dx = y * (dy - sum(dy * y))
//   log_softmax:  y = (x - max) - log(sum(exp(x - max)))       dx = dy - exp(y) * sum(dy)
//
// Subtracting the maximum keeps exp from overflowing. A NaN anywhere in the row makes the whole
// row NaN, as in PyTorch.
#include <math.h>

#include <cstdint>

#include "ember/macros.h"

namespace ember {

template <typename T, typename Acc>
EMBER_HD_INLINE void softmax_row(T* out, const T* in, int64_t D, int64_t stride, bool log_space) {
  Acc m = static_cast<Acc>(in[0]);
  for (int64_t i = 1; i < D; ++i) {
    const Acc v = static_cast<Acc>(in[i * stride]);
    m = (v > m || v != v) ? v : m;
  }
  Acc sum = Acc(0);
  for (int64_t i = 0; i < D; ++i) {
    const Acc e = ::exp(static_cast<Acc>(in[i * stride]) - m);
    sum += e;
    if (!log_space) out[i * stride] = static_cast<T>(e);  // rescaled below
  }
  if (log_space) {
    // (x - max) - log(sum), in this order: x - (max + log(sum)) loses the digits of x - max
    // when x is large.
    const Acc log_sum = ::log(sum);
    for (int64_t i = 0; i < D; ++i) {
      out[i * stride] = static_cast<T>((static_cast<Acc>(in[i * stride]) - m) - log_sum);
    }
  } else {
    for (int64_t i = 0; i < D; ++i) {
      // Re-derived from the input when T is narrower than Acc, so only one rounding happens.
      const Acc e = sizeof(T) < sizeof(Acc) ? ::exp(static_cast<Acc>(in[i * stride]) - m)
                                            : static_cast<Acc>(out[i * stride]);
      out[i * stride] = static_cast<T>(e / sum);
    }
  }
}

template <typename T, typename Acc>
EMBER_HD_INLINE void softmax_backward_row(T* grad_in, const T* grad_out, const T* out, int64_t D,
                                          int64_t stride, bool log_space) {
  Acc dot = Acc(0);  // sum(dy * y) for softmax, sum(dy) for log_softmax
  for (int64_t i = 0; i < D; ++i) {
    const Acc g = static_cast<Acc>(grad_out[i * stride]);
    dot += log_space ? g : g * static_cast<Acc>(out[i * stride]);
  }
  for (int64_t i = 0; i < D; ++i) {
    const Acc g = static_cast<Acc>(grad_out[i * stride]), y = static_cast<Acc>(out[i * stride]);
    grad_in[i * stride] = static_cast<T>(log_space ? g - ::exp(y) * dot : y * (g - dot));
  }
}

}  // namespace ember
