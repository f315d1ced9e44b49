#pragma once
// Attention forward + backward: the call each library's user writes. Ember's is
// scaled_dot_product_attention (its fused kernel); libtorch 1.13 has no fused function, so its
// row is the composition its users write (matmul, softmax, matmul, as 1.13's
// MultiheadAttention does). Each program defines bench::attention(q, k, v, causal) before
// including this file. Ember also times its own math path (attention_math_*), which must never
// beat the fused kernel.
#include <string>

#include "harness.h"

namespace bench {

inline void attention_rows(Runner& r) {
  if (!r.wants("attention")) return;
  // B x H = 32 (4 x 8), head dim 64, float32 (the shapes).
  for (const int64_t T : {64, 256, 1024}) {
    for (const bool causal : {false, true}) {
      tt::Tensor q = tt::randn({4, 8, T, 64}).requires_grad_(true);
      tt::Tensor k = tt::randn({4, 8, T, 64}).requires_grad_(true);
      tt::Tensor v = tt::randn({4, 8, T, 64}).requires_grad_(true);
      tt::Tensor g = tt::randn({4, 8, T, 64});
      const std::string shape = "T" + std::to_string(T) + (causal ? "_causal" : "");
      r.time("attention", "attention_" + shape, Unit::kMilliseconds, 0, [&] {
        tt::Tensor out = attention(q, k, v, causal);
        out.backward(g);
      });
#ifdef EMBER_BENCH_ATTENTION_MATH
      r.time("attention", "attention_math_" + shape, Unit::kMilliseconds, 0, [&] {
        tt::Tensor out = attention_math(q, k, v, causal);
        out.backward(g);
      });
#endif
    }
  }
}

}  // namespace bench
