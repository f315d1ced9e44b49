#pragma once
// bench::attention for the Ember programs (bench_ember, bench_ember_cuda): the fused
// scaled_dot_product_attention, and attention_math, the same call on the math path. The rows of
// attention_cases.h and train_cases.h call them; bench_torch defines its own.
#include <ember/nn/attention.h>

namespace bench {

inline ember::Tensor attention(const ember::Tensor& q, const ember::Tensor& k,
                               const ember::Tensor& v, bool causal) {
  return ember::scaled_dot_product_attention(q, k, v, {}, 0.0, causal);
}
inline ember::Tensor attention_math(const ember::Tensor& q, const ember::Tensor& k,
                                    const ember::Tensor& v, bool causal) {
  ember::nn::attention::SdpaKernelGuard math({ember::nn::attention::SDPBackend::MATH});
  return ember::scaled_dot_product_attention(q, k, v, {}, 0.0, causal);
}

}  // namespace bench
