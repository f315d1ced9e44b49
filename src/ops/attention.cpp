// The fused attention's front end (ops/attention_ops.h): q/k/v as the kernel's 4-d contiguous
// layouts (kernel_math/attention.h), the dropout's Philox blocks reserved, the `attention`
// family called, and its gradient recorded with the `attention_backward` family.
#include "ops/attention_ops.h"

#include <vector>

#include "autograd/record.h"
#include "core/backend.h"
#include "core/generator.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {
namespace {

// The dims of q [..., H, L, E] as the kernel sees them: batch = the product of the leading dims.
struct Dims {
  int64_t batch, heads, len, width;
};
Dims dims_of(const Tensor& t) {
  const int64_t n = t.dim();
  int64_t batch = 1;
  for (int64_t d = 0; d + 3 < n; ++d) batch *= t.size(d);
  return {batch, n >= 3 ? t.size(n - 3) : 1, t.size(n - 2), t.size(n - 1)};
}

}  // namespace

Tensor fused_attention(const Tensor& q0, const Tensor& k0, const Tensor& v0, const Tensor& mask,
                       double dropout_p, bool is_causal, double scale) {
  const Dims dq = dims_of(q0), dk = dims_of(k0), dv = dims_of(v0);
  const Tensor q = q0.reshape({dq.batch, dq.heads, dq.len, dq.width}).contiguous();
  const Tensor k = k0.reshape({dk.batch, dk.heads, dk.len, dk.width}).contiguous();
  const Tensor v = v0.reshape({dv.batch, dv.heads, dv.len, dv.width}).contiguous();
  const ScalarType acc = q.dtype() == kDouble ? kDouble : kFloat;

  AttentionGeometry g{dq.batch, dq.heads,  dk.heads,  dq.len, dk.len, dq.width, dv.width,
                      scale,    is_causal, dropout_p, 0,      0,      false,    {0, 0, 0, 0}};
  Tensor m4;
  if (mask.defined()) {
    // Broadcast to the query's [..., Hq, L, S], then merge the leading dims (a view unless they
    // broadcast in a way strides cannot merge).
    std::vector<int64_t> full(q0.sizes().begin(), q0.sizes().end() - 1);
    full.push_back(dk.len);
    m4 = mask.expand(full).reshape({dq.batch, dq.heads, dq.len, dk.len});
    g.has_mask = true;
    for (int d = 0; d < 4; ++d) g.mask_strides[d] = m4.size(d) == 1 ? 0 : m4.stride(d);
  }
  if (dropout_p > 0) {
    const PhiloxState st = reserve_random_blocks(attention_dropout_blocks(g));
    g.seed = st.seed;
    g.offset = st.offset;
  }
  Tensor out = make_empty({dq.batch, dq.heads, dq.len, dv.width}, q.dtype(), q.device());
  Tensor lse = make_empty({dq.batch, dq.heads, dq.len}, acc, q.device());
  backend_for(out).attention(out, lse, q, k, v, m4, g);
  if (autograd::needs_grad({q, k, v})) {
    autograd::record("ScaledDotProductFlashAttentionBackward0", out, {q, k, v},
                     [sq = autograd::SavedTensor(q), sk = autograd::SavedTensor(k),
                      sv = autograd::SavedTensor(v), so = autograd::SavedTensor(out, true), lse, m4,
                      g](const autograd::variable_list& grads) {
                       const Tensor qv = sq.unpack(), kv = sk.unpack(), vv = sv.unpack(),
                                    ov = so.unpack();
                       Tensor gq = make_empty(qv.sizes(), qv.dtype(), qv.device());
                       Tensor gk = make_empty(kv.sizes(), kv.dtype(), kv.device());
                       Tensor gv = make_empty(vv.sizes(), vv.dtype(), vv.device());
                       backend_for(gq).attention_backward(gq, gk, gv, grads[0].contiguous(), qv, kv,
                                                          vv, ov, lse, m4, g);
                       return autograd::variable_list{gq, gk, gv};
                     });
  }
  std::vector<int64_t> out_shape(q0.sizes().begin(), q0.sizes().end() - 1);
  out_shape.push_back(dv.width);
  return out.reshape(out_shape);
}

}  // namespace ember
