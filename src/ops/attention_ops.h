#pragma once
// The fused attention's front end (internal; nn/attention.cpp calls it when the FLASH_ATTENTION
// backend takes a call), so that src/nn reaches no backend itself.
#include "ember/tensor.h"

namespace ember {

// softmax(q k^T * scale + mask) v with dropout, by the `attention` family, differentiable in q, k
// and v. q [..., Hq, L, E], k [..., Hk, S, E], v [..., Hk, S, Ev] with equal leading dims; mask
// additive, of the accumulation dtype (float64 for float64 inputs, else float32), broadcasting to
// [..., Hq, L, S], or undefined.
Tensor fused_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                       double dropout_p, bool is_causal, double scale);

}  // namespace ember
