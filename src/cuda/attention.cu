// Fused attention on CUDA, forward and backward (kernel_math/attention.h has the layouts and the
// dropout rule both backends share). The same design as the CPU kernel, one thread per row:
//   forward: a thread per query walks the keys with the online softmax (running maximum and
//     sum, the accumulator rescaled when the maximum grows), so no [L, S] buffer exists;
//   backward: D_i = dO_i . O_i per query; then a thread per key computes dK_j and dV_j over the
//     queries of every query head that reads it, and a thread per query computes dQ_i, each
//     recomputing p = exp(s - lse). No two threads write one gradient: no atomics, and the
//     result does not depend on scheduling.
// The accumulators are per-thread arrays of kMaxAttentionDim; the front end sends larger head
// dims to the math path. Tiles in shared memory (queries x keys per block) are the next step for
// speed; this kernel is the correct reference the GPU proof measures first.
#include <math.h>

#include <cstdint>

#include "core/tensor_factory.h"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "kernel_math/attention.h"

namespace ember::cuda {
namespace {

constexpr int64_t kMaxAttentionDim = 256;

template <typename Acc, typename T>
__device__ __forceinline__ Acc dot(const T* a, const T* b, int64_t n) {
  Acc s = 0;
  for (int64_t e = 0; e < n; ++e) s += static_cast<Acc>(a[e]) * static_cast<Acc>(b[e]);
  return s;
}

// scale * q . k + mask, or -inf where the causal rule hides the key.
template <typename Acc, typename T>
__device__ __forceinline__ Acc score(const AttentionGeometry& g, const T* q, const T* k,
                                     const Acc* mask, int64_t b, int64_t h, int64_t i, int64_t j) {
  if (g.hidden(i, j)) return Acc(-INFINITY);
  Acc s = static_cast<Acc>(g.scale) * dot<Acc>(q, k, g.head_dim);
  if (g.has_mask) s += mask[g.mask_offset(b, h, i, j)];
  return s;
}

template <typename Acc>
__device__ __forceinline__ Acc keep_factor(const AttentionGeometry& g, int64_t b, int64_t h,
                                           int64_t i, int64_t j) {
  if (g.dropout_p == 0) return Acc(1);
  return attention_keeps(g, b, h, i, j) ? static_cast<Acc>(1.0 / (1.0 - g.dropout_p)) : Acc(0);
}

template <typename T>
__global__ void attention_forward_kernel(T* out, acc_t<T>* lse, const T* q, const T* k, const T* v,
                                         const acc_t<T>* mask, AttentionGeometry g) {
  using Acc = acc_t<T>;
  const int64_t rows = g.batch * g.q_heads * g.q_len;
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows;
       r += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = r % g.q_len, bh = r / g.q_len, h = bh % g.q_heads, b = bh / g.q_heads;
    const int64_t kv = b * g.kv_heads + h / g.group();
    const T* qi = q + r * g.head_dim;
    Acc acc[kMaxAttentionDim];
    for (int64_t e = 0; e < g.value_dim; ++e) acc[e] = 0;
    Acc m = -INFINITY, l = 0;
    const int64_t end = (g.is_causal && i + 1 < g.kv_len) ? i + 1 : g.kv_len;
    for (int64_t j = 0; j < end; ++j) {
      const Acc s = score(g, qi, k + (kv * g.kv_len + j) * g.head_dim, mask, b, h, i, j);
      if (s == Acc(-INFINITY)) continue;  // weight 0
      if (s > m) {                        // rescale what was summed relative to the old maximum
        const Acc rescale = m == Acc(-INFINITY) ? Acc(0) : ::exp(m - s);
        l *= rescale;
        for (int64_t e = 0; e < g.value_dim; ++e) acc[e] *= rescale;
        m = s;
      }
      const Acc p = ::exp(s - m);
      l += p;
      const Acc w = p * keep_factor<Acc>(g, b, h, i, j);
      const T* vj = v + (kv * g.kv_len + j) * g.value_dim;
      for (int64_t e = 0; e < g.value_dim; ++e) acc[e] += w * static_cast<Acc>(vj[e]);
    }
    // A query that sees no key ends 0 / 0 = NaN, as softmax over a row of -inf does.
    for (int64_t e = 0; e < g.value_dim; ++e) out[r * g.value_dim + e] = static_cast<T>(acc[e] / l);
    lse[r] = m + ::log(l);
  }
}

template <typename T>
__global__ void attention_delta_kernel(acc_t<T>* delta, const T* grad_out, const T* out,
                                       int64_t rows, int64_t width) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows;
       r += int64_t(gridDim.x) * blockDim.x) {
    delta[r] = dot<acc_t<T>>(grad_out + r * width, out + r * width, width);
  }
}

// dK_j and dV_j: one thread per key of one (batch, key head).
template <typename T>
__global__ void attention_grad_kv_kernel(T* grad_k, T* grad_v, const T* grad_out, const T* q,
                                         const T* k, const T* v, const acc_t<T>* lse,
                                         const acc_t<T>* delta, const acc_t<T>* mask,
                                         AttentionGeometry g) {
  using Acc = acc_t<T>;
  const int64_t keys = g.batch * g.kv_heads * g.kv_len;
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < keys;
       c += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = c % g.kv_len, bhk = c / g.kv_len, hk = bhk % g.kv_heads, b = bhk / g.kv_heads;
    const T* kj = k + c * g.head_dim;
    const T* vj = v + c * g.value_dim;
    Acc dk[kMaxAttentionDim], dv[kMaxAttentionDim];
    for (int64_t e = 0; e < g.head_dim; ++e) dk[e] = 0;
    for (int64_t e = 0; e < g.value_dim; ++e) dv[e] = 0;
    for (int64_t h = hk * g.group(); h < (hk + 1) * g.group(); ++h) {
      for (int64_t i = g.is_causal ? j : 0; i < g.q_len; ++i) {
        const int64_t r = (b * g.q_heads + h) * g.q_len + i;
        const T* qi = q + r * g.head_dim;
        const T* doi = grad_out + r * g.value_dim;
        const Acc p = ::exp(score(g, qi, kj, mask, b, h, i, j) - lse[r]);
        const Acc keep = keep_factor<Acc>(g, b, h, i, j);
        for (int64_t e = 0; e < g.value_dim; ++e) dv[e] += p * keep * static_cast<Acc>(doi[e]);
        const Acc ds = p * (dot<Acc>(doi, vj, g.value_dim) * keep - delta[r]);
        const Acc f = static_cast<Acc>(g.scale) * ds;
        for (int64_t e = 0; e < g.head_dim; ++e) dk[e] += f * static_cast<Acc>(qi[e]);
      }
    }
    for (int64_t e = 0; e < g.head_dim; ++e) grad_k[c * g.head_dim + e] = static_cast<T>(dk[e]);
    for (int64_t e = 0; e < g.value_dim; ++e) grad_v[c * g.value_dim + e] = static_cast<T>(dv[e]);
  }
}

// dQ_i: one thread per query.
template <typename T>
__global__ void attention_grad_q_kernel(T* grad_q, const T* grad_out, const T* q, const T* k,
                                        const T* v, const acc_t<T>* lse, const acc_t<T>* delta,
                                        const acc_t<T>* mask, AttentionGeometry g) {
  using Acc = acc_t<T>;
  const int64_t rows = g.batch * g.q_heads * g.q_len;
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows;
       r += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = r % g.q_len, bh = r / g.q_len, h = bh % g.q_heads, b = bh / g.q_heads;
    const int64_t kv = b * g.kv_heads + h / g.group();
    const T* qi = q + r * g.head_dim;
    const T* doi = grad_out + r * g.value_dim;
    Acc dq[kMaxAttentionDim];
    for (int64_t e = 0; e < g.head_dim; ++e) dq[e] = 0;
    const int64_t end = (g.is_causal && i + 1 < g.kv_len) ? i + 1 : g.kv_len;
    for (int64_t j = 0; j < end; ++j) {
      const T* kj = k + (kv * g.kv_len + j) * g.head_dim;
      const T* vj = v + (kv * g.kv_len + j) * g.value_dim;
      const Acc p = ::exp(score(g, qi, kj, mask, b, h, i, j) - lse[r]);
      const Acc ds =
          p * (dot<Acc>(doi, vj, g.value_dim) * keep_factor<Acc>(g, b, h, i, j) - delta[r]);
      const Acc f = static_cast<Acc>(g.scale) * ds;
      for (int64_t e = 0; e < g.head_dim; ++e) dq[e] += f * static_cast<Acc>(kj[e]);
    }
    for (int64_t e = 0; e < g.head_dim; ++e) grad_q[r * g.head_dim + e] = static_cast<T>(dq[e]);
  }
}

void check_dims(const AttentionGeometry& g) {
  EMBER_CHECK(g.head_dim <= kMaxAttentionDim && g.value_dim <= kMaxAttentionDim, ValueError,
              "attention on CUDA: head dims above ", kMaxAttentionDim, " (got ", g.head_dim,
              " and ", g.value_dim, ") take the math path");
}

}  // namespace

void CudaBackend::attention(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                            const Tensor& v, const Tensor& mask, const AttentionGeometry& g) {
  if (out.numel() == 0) return;
  check_dims(g);
  check_operands("attention", {&out, &lse, &q, &k, &v});
  DeviceGuard guard(out.device().index());
  const int64_t rows = g.batch * g.q_heads * g.q_len;
  EMBER_DISPATCH_FLOATING(q.dtype(), "attention", [&] {
    using Acc = acc_t<scalar_t>;
    launch_kernel(EMBER_KERNEL(attention_forward_kernel<scalar_t>),
                  {grid_for(rows), kThreads, 0, detail::stream_of(out)}, out.data_ptr<scalar_t>(),
                  lse.data_ptr<Acc>(), q.data_ptr<scalar_t>(), k.data_ptr<scalar_t>(),
                  v.data_ptr<scalar_t>(), g.has_mask ? mask.data_ptr<Acc>() : nullptr, g);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::attention_backward(const Tensor& grad_q, const Tensor& grad_k,
                                     const Tensor& grad_v, const Tensor& grad_out, const Tensor& q,
                                     const Tensor& k, const Tensor& v, const Tensor& out,
                                     const Tensor& lse, const Tensor& mask,
                                     const AttentionGeometry& g) {
  if (grad_q.numel() == 0) return;
  check_dims(g);
  check_operands("attention_backward",
                 {&grad_q, &grad_k, &grad_v, &grad_out, &q, &k, &v, &out, &lse});
  DeviceGuard guard(grad_q.device().index());
  cudaStream_t stream = detail::stream_of(grad_q);
  const int64_t rows = g.batch * g.q_heads * g.q_len, keys = g.batch * g.kv_heads * g.kv_len;
  Tensor delta = make_empty({rows}, lse.scalar_type(), lse.device());
  EMBER_DISPATCH_FLOATING(q.dtype(), "attention_backward", [&] {
    using Acc = acc_t<scalar_t>;
    const Acc* m = g.has_mask ? mask.data_ptr<Acc>() : nullptr;
    launch_kernel(EMBER_KERNEL(attention_delta_kernel<scalar_t>),
                  {grid_for(rows), kThreads, 0, stream}, delta.data_ptr<Acc>(),
                  grad_out.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), rows, g.value_dim);
    launch_kernel(EMBER_KERNEL(attention_grad_kv_kernel<scalar_t>),
                  {grid_for(keys), kThreads, 0, stream}, grad_k.data_ptr<scalar_t>(),
                  grad_v.data_ptr<scalar_t>(), grad_out.data_ptr<scalar_t>(),
                  q.data_ptr<scalar_t>(), k.data_ptr<scalar_t>(), v.data_ptr<scalar_t>(),
                  lse.data_ptr<Acc>(), delta.data_ptr<Acc>(), m, g);
    launch_kernel(EMBER_KERNEL(attention_grad_q_kernel<scalar_t>),
                  {grid_for(rows), kThreads, 0, stream}, grad_q.data_ptr<scalar_t>(),
                  grad_out.data_ptr<scalar_t>(), q.data_ptr<scalar_t>(), k.data_ptr<scalar_t>(),
                  v.data_ptr<scalar_t>(), lse.data_ptr<Acc>(), delta.data_ptr<Acc>(), m, g);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda
