#pragma once
// Fused scaled dot-product attention: the geometry and the per-element math both backends run
// (compiled by g++ and nvcc, EMBER_HD), so the CPU tests check what the GPU kernels compute.
//
// Layouts (contiguous): q [B, Hq, L, E], k [B, Hk, S, E], v [B, Hk, S, Ev], out [B, Hq, L, Ev],
// lse [B, Hq, L] (the log-sum-exp of each query's scores, in the accumulation type: float64 for
// float64 inputs, float32 otherwise). Hq is a multiple of Hk (grouped-query attention): query head
// h reads key/value head h / (Hq / Hk). The optional additive mask has the accumulation type and
// any strides over [B, Hq, L, S] (0 where it broadcasts).
//
// The forward keeps, per query row, the running maximum m and sum l of exp(s - m) ("online
// softmax") and never holds the L x S score matrix; the backward recomputes each probability
// from the saved lse: p = exp(s - lse).
#include <cstdint>

#include "ember/macros.h"
#include "kernel_math/philox.h"

namespace ember {

struct AttentionGeometry {
  int64_t batch, q_heads, kv_heads, q_len, kv_len, head_dim, value_dim;
  double scale;           // multiplies q . k (PyTorch's default 1 / sqrt(E))
  bool is_causal;         // query i sees keys j <= i (top-left aligned, as PyTorch 2.x)
  double dropout_p;       // probability of dropping a weight; 0 when not training
  uint64_t seed, offset;  // the Philox stream of the dropout mask (generator.h)
  // Strides of the additive mask over [B, Hq, L, S]; has_mask says whether there is one.
  bool has_mask;
  int64_t mask_strides[4];

  EMBER_HD int64_t group() const { return q_heads / kv_heads; }
  // The mask's element for (b, h, i, j), as an offset into its data.
  EMBER_HD int64_t mask_offset(int64_t b, int64_t h, int64_t i, int64_t j) const {
    return b * mask_strides[0] + h * mask_strides[1] + i * mask_strides[2] + j * mask_strides[3];
  }
  // True when the causal rule hides key j from query i.
  EMBER_HD bool hidden(int64_t i, int64_t j) const { return is_causal && j > i; }
};

// Whether dropout keeps the weight of (b, h, i, j): element n = ((b * Hq + h) * L + i) * S + j of
// the [B, Hq, L, S] weights uses lane n % 4 of Philox block offset + n / 4, kept when its uniform
// float is >= p. Both backends and both passes (forward, backward) call this, so one seed gives
// one mask everywhere.
EMBER_HD_INLINE bool attention_keeps(const AttentionGeometry& g, int64_t b, int64_t h, int64_t i,
                                     int64_t j) {
  const uint64_t n = static_cast<uint64_t>(((b * g.q_heads + h) * g.q_len + i) * g.kv_len + j);
  const philox::Block r = philox::philox4x32_10(g.offset + n / 4, g.seed);
  return static_cast<double>(philox::uniform_float(r.v[n % 4])) >= g.dropout_p;
}

// Philox blocks a call reserves for its mask (4 weights per block).
inline uint64_t attention_dropout_blocks(const AttentionGeometry& g) {
  return static_cast<uint64_t>((g.batch * g.q_heads * g.q_len * g.kv_len + 3) / 4);
}

}  // namespace ember
