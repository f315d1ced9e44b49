// Fused attention on the CPU, forward and backward (kernel_math/attention.h has the layouts and
// the dropout rule). Flash-attention's design: a task is one block of queries of one (batch,
// head); it walks the key blocks, computes the block's scores with one GEMM, folds them into the
// running maximum and sum of each query ("online softmax"), and adds probabilities @ values with
// a second GEMM. Only a [64, 256] score block (128 keys when causal) exists at a time, never the
// [L, S] matrix.
//
// The backward recomputes the probabilities from the saved log-sum-exp, and no two tasks write
// the same gradient: with many (batch, key head) pairs, a task per pair walks all its blocks
// once; with few, pass 1 runs over key blocks (dK, dV: every query block of every query head
// that shares the key head) and pass 2 over query blocks (dQ). With D_i = dO_i . O_i:
//   dV_j += P^T dO,  dP = dO V^T,  dS = P * (dP * keep / (1 - p) - D),  dK += scale dS^T Q,
//   dQ += scale dS K.
// float16/bfloat16 run on float32 copies (float32 accumulation, as PyTorch's CPU kernel).
// The GEMMs are OpenBLAS's (single-threaded inside the parallel tasks).
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/tensor_factory.h"
#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "cpu/num_threads.h"
#include "cpu/vec_math.h"

namespace ember::cpu {
namespace {

constexpr int64_t kQueryBlock = 64;
// Keys per block: wide blocks make fewer, larger GEMMs; causal calls use narrower ones, since a
// block the diagonal crosses is computed whole and half of it is then hidden.
int64_t key_block(const AttentionGeometry& g) {
  return g.is_causal ? 128 : 256;
}

template <typename T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda,
          const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  const auto fa = ta ? CblasTrans : CblasNoTrans, fb = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, fa, fb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  } else {
    cblas_dgemm(CblasRowMajor, fa, fb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  }
}

// exp over n contiguous values in place, with the vector kernel where there is one.
template <typename T>
void exp_in_place(T* x, int64_t n) {
  const VecMathKernels* vk = vec_math();
  if (vk != nullptr) {
    if (VecUnaryFn<T> f = vk->unary<T>(VecUnary::kExp)) return f(x, x, n);
  }
  for (int64_t i = 0; i < n; ++i) x[i] = std::exp(x[i]);
}

// The tensors of one call as typed pointers, and where a (batch, head) starts in each.
template <typename T>
struct Operands {
  const AttentionGeometry& g;
  const T *q, *k, *v, *mask;
  int64_t kb = key_block(g);  // keys per block; the row stride of the score blocks

  const T* q_at(int64_t b, int64_t h, int64_t i) const {
    return q + ((b * g.q_heads + h) * g.q_len + i) * g.head_dim;
  }
  const T* k_at(int64_t b, int64_t h, int64_t j) const {
    return k + ((b * g.kv_heads + h / g.group()) * g.kv_len + j) * g.head_dim;
  }
  const T* v_at(int64_t b, int64_t h, int64_t j) const {
    return v + ((b * g.kv_heads + h / g.group()) * g.kv_len + j) * g.value_dim;
  }
  int64_t row(int64_t b, int64_t h, int64_t i) const { return (b * g.q_heads + h) * g.q_len + i; }
};

// s [nq, o.kb] = scale * q_block k_block^T + mask, -inf where the causal rule hides a key.
template <typename T>
void block_scores(const Operands<T>& o, int64_t b, int64_t h, int64_t i0, int64_t nq, int64_t j0,
                  int64_t nk, T* s) {
  const AttentionGeometry& g = o.g;
  gemm(false, true, nq, nk, g.head_dim, static_cast<T>(g.scale), o.q_at(b, h, i0), g.head_dim,
       o.k_at(b, h, j0), g.head_dim, T(0), s, o.kb);
  if (!g.has_mask && !g.is_causal) return;
  for (int64_t i = 0; i < nq; ++i) {
    T* row = s + i * o.kb;
    if (g.has_mask) {
      const T* m = o.mask + g.mask_offset(b, h, i0 + i, j0);
      const int64_t step = g.mask_strides[3];
      for (int64_t j = 0; j < nk; ++j) row[j] += m[j * step];
    }
    if (g.is_causal) {
      for (int64_t j = std::max<int64_t>(0, i0 + i + 1 - j0); j < nk; ++j) {
        row[j] = -std::numeric_limits<T>::infinity();
      }
    }
  }
}

// The last key any query of [i0, i0 + nq) sees, plus one.
int64_t key_end(const AttentionGeometry& g, int64_t i0, int64_t nq) {
  return g.is_causal ? std::min(g.kv_len, i0 + nq) : g.kv_len;
}

template <typename T>
void forward(const Operands<T>& o, T* out, T* lse) {
  const AttentionGeometry& g = o.g;
  const int64_t q_blocks = (g.q_len + kQueryBlock - 1) / kQueryBlock;
  const T keep_scale = static_cast<T>(1.0 / (1.0 - g.dropout_p));
  const int64_t work = kQueryBlock * g.kv_len * (g.head_dim + g.value_dim);
  parallel_for(g.batch * g.q_heads * q_blocks, work, [&](int64_t begin, int64_t end) {
    std::vector<T> s(kQueryBlock * o.kb), m(kQueryBlock), l(kQueryBlock),
        acc(kQueryBlock * g.value_dim);
    for (int64_t t = begin; t < end; ++t) {
      const int64_t bh = t / q_blocks, b = bh / g.q_heads, h = bh % g.q_heads;
      const int64_t i0 = (t % q_blocks) * kQueryBlock, nq = std::min(kQueryBlock, g.q_len - i0);
      std::fill(m.begin(), m.end(), -std::numeric_limits<T>::infinity());
      std::fill(l.begin(), l.end(), T(0));
      std::fill(acc.begin(), acc.end(), T(0));
      const int64_t end_key = key_end(g, i0, nq);
      for (int64_t j0 = 0; j0 < end_key; j0 += o.kb) {
        const int64_t nk = std::min(o.kb, end_key - j0);
        block_scores(o, b, h, i0, nq, j0, nk, s.data());
        for (int64_t i = 0; i < nq; ++i) {
          T* row = s.data() + i * o.kb;
          T top = m[i];
          for (int64_t j = 0; j < nk; ++j) top = std::max(top, row[j]);
          if (top == -std::numeric_limits<T>::infinity()) {  // nothing seen yet: weights 0
            std::fill(row, row + nk, T(0));
            continue;
          }
          for (int64_t j = 0; j < nk; ++j) row[j] -= top;
          exp_in_place(row, nk);
          T sum = 0;
          for (int64_t j = 0; j < nk; ++j) sum += row[j];
          const T rescale = std::exp(m[i] - top);
          l[i] = l[i] * rescale + sum;
          m[i] = top;
          T* a = acc.data() + i * g.value_dim;
          for (int64_t e = 0; e < g.value_dim; ++e) a[e] *= rescale;
          if (g.dropout_p > 0) {
            for (int64_t j = 0; j < nk; ++j) {
              row[j] = attention_keeps(g, b, h, i0 + i, j0 + j) ? row[j] * keep_scale : T(0);
            }
          }
        }
        gemm(false, false, nq, g.value_dim, nk, T(1), s.data(), o.kb, o.v_at(b, h, j0), g.value_dim,
             T(1), acc.data(), g.value_dim);
      }
      for (int64_t i = 0; i < nq; ++i) {
        const int64_t r = o.row(b, h, i0 + i);
        // A query that sees no key ends 0 / 0 = NaN, as softmax over a row of -inf does.
        for (int64_t e = 0; e < g.value_dim; ++e) {
          out[r * g.value_dim + e] = acc[i * g.value_dim + e] / l[i];
        }
        lse[r] = m[i] + std::log(l[i]);
      }
    }
  });
}

// p = exp(s - lse) of a score block in place; dp = the gradient of the weights before dropout;
// on return dp holds dS = P * (dP - D) and, when pd is given, pd the weights after dropout.
template <typename T>
void block_gradient(const Operands<T>& o, const T* lse, const T* delta, const T* grad_out,
                    int64_t b, int64_t h, int64_t i0, int64_t nq, int64_t j0, int64_t nk, T* s,
                    T* dp, T* pd) {
  const AttentionGeometry& g = o.g;
  const T keep_scale = static_cast<T>(1.0 / (1.0 - g.dropout_p));
  block_scores(o, b, h, i0, nq, j0, nk, s);
  // dP (of the weights after dropout) = dO_block V_block^T
  gemm(false, true, nq, nk, g.value_dim, T(1), grad_out + o.row(b, h, i0) * g.value_dim,
       g.value_dim, o.v_at(b, h, j0), g.value_dim, T(0), dp, o.kb);
  for (int64_t i = 0; i < nq; ++i) {
    const int64_t r = o.row(b, h, i0 + i);
    T* srow = s + i * o.kb;
    T* drow = dp + i * o.kb;
    for (int64_t j = 0; j < nk; ++j) srow[j] -= lse[r];
    exp_in_place(srow, nk);
    for (int64_t j = 0; j < nk; ++j) {
      T keep = 1;
      if (g.dropout_p > 0) keep = attention_keeps(g, b, h, i0 + i, j0 + j) ? keep_scale : T(0);
      if (pd != nullptr) pd[i * o.kb + j] = srow[j] * keep;
      drow[j] = srow[j] * (drow[j] * keep - delta[r]);
    }
  }
}

template <typename T>
void backward(const Operands<T>& o, const T* out, const T* lse, const T* grad_out, T* grad_q,
              T* grad_k, T* grad_v) {
  const AttentionGeometry& g = o.g;
  const int64_t rows = g.batch * g.q_heads * g.q_len;
  std::vector<T> delta(rows);  // D_i = dO_i . O_i
  parallel_for(rows, g.value_dim * 2, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      T d = 0;
      for (int64_t e = 0; e < g.value_dim; ++e) {
        d += grad_out[r * g.value_dim + e] * out[r * g.value_dim + e];
      }
      delta[r] = d;
    }
  });
  const T scale = static_cast<T>(g.scale);
  const int64_t work = g.q_len * o.kb * (2 * g.head_dim + 2 * g.value_dim);
  const int64_t k_blocks = (g.kv_len + o.kb - 1) / o.kb;

  // Enough (batch, key head) pairs to keep every thread busy: one task per pair computes dK, dV
  // and the dQ of its query heads in one walk over the blocks (5 GEMMs per block pair, as
  // flash-attention 2). Otherwise the two passes below split the work finer (7 GEMMs).
  if (g.batch * g.kv_heads >= 2 * intra_op_threads()) {
    parallel_for(
        g.batch * g.kv_heads, work * k_blocks * g.group(), [&](int64_t begin, int64_t end) {
          std::vector<T> s(kQueryBlock * o.kb), dp(s.size()), pd(s.size());
          std::vector<T> dk(o.kb * g.head_dim), dv(o.kb * g.value_dim);
          for (int64_t t = begin; t < end; ++t) {
            const int64_t b = t / g.kv_heads, hk = t % g.kv_heads;
            const int64_t h0 = hk * g.group(), h1 = h0 + g.group();
            std::fill(grad_q + o.row(b, h0, 0) * g.head_dim, grad_q + o.row(b, h1, 0) * g.head_dim,
                      T(0));
            for (int64_t j0 = 0; j0 < g.kv_len; j0 += o.kb) {
              const int64_t nk = std::min(o.kb, g.kv_len - j0);
              std::fill(dk.begin(), dk.end(), T(0));
              std::fill(dv.begin(), dv.end(), T(0));
              const int64_t first = g.is_causal ? (j0 / kQueryBlock) * kQueryBlock : 0;
              for (int64_t h = h0; h < h1; ++h) {
                for (int64_t i0 = first; i0 < g.q_len; i0 += kQueryBlock) {
                  const int64_t nq = std::min(kQueryBlock, g.q_len - i0);
                  block_gradient(o, lse, delta.data(), grad_out, b, h, i0, nq, j0, nk, s.data(),
                                 dp.data(), pd.data());
                  gemm(true, false, nk, g.value_dim, nq, T(1), pd.data(), o.kb,
                       grad_out + o.row(b, h, i0) * g.value_dim, g.value_dim, T(1), dv.data(),
                       g.value_dim);
                  gemm(true, false, nk, g.head_dim, nq, scale, dp.data(), o.kb, o.q_at(b, h, i0),
                       g.head_dim, T(1), dk.data(), g.head_dim);
                  gemm(false, false, nq, g.head_dim, nk, scale, dp.data(), o.kb, o.k_at(b, h, j0),
                       g.head_dim, T(1), grad_q + o.row(b, h, i0) * g.head_dim, g.head_dim);
                }
              }
              const int64_t base = (b * g.kv_heads + hk) * g.kv_len + j0;
              std::copy(dk.begin(), dk.begin() + nk * g.head_dim, grad_k + base * g.head_dim);
              std::copy(dv.begin(), dv.begin() + nk * g.value_dim, grad_v + base * g.value_dim);
            }
          }
        });
    return;
  }

  // Pass 1: dK and dV, one task per key block of one (batch, key head).
  parallel_for(g.batch * g.kv_heads * k_blocks, work * g.group(), [&](int64_t begin, int64_t end) {
    std::vector<T> s(kQueryBlock * o.kb), dp(s.size()), pd(s.size());
    std::vector<T> dk(o.kb * g.head_dim), dv(o.kb * g.value_dim);
    for (int64_t t = begin; t < end; ++t) {
      const int64_t bhk = t / k_blocks, b = bhk / g.kv_heads, hk = bhk % g.kv_heads;
      const int64_t j0 = (t % k_blocks) * o.kb, nk = std::min(o.kb, g.kv_len - j0);
      std::fill(dk.begin(), dk.end(), T(0));
      std::fill(dv.begin(), dv.end(), T(0));
      // Queries before j0 see none of these keys under the causal rule.
      const int64_t first = g.is_causal ? (j0 / kQueryBlock) * kQueryBlock : 0;
      for (int64_t h = hk * g.group(); h < (hk + 1) * g.group(); ++h) {
        for (int64_t i0 = first; i0 < g.q_len; i0 += kQueryBlock) {
          const int64_t nq = std::min(kQueryBlock, g.q_len - i0);
          block_gradient(o, lse, delta.data(), grad_out, b, h, i0, nq, j0, nk, s.data(), dp.data(),
                         pd.data());
          const T* dout = grad_out + o.row(b, h, i0) * g.value_dim;
          gemm(true, false, nk, g.value_dim, nq, T(1), pd.data(), o.kb, dout, g.value_dim, T(1),
               dv.data(), g.value_dim);
          gemm(true, false, nk, g.head_dim, nq, scale, dp.data(), o.kb, o.q_at(b, h, i0),
               g.head_dim, T(1), dk.data(), g.head_dim);
        }
      }
      const int64_t base = (b * g.kv_heads + hk) * g.kv_len + j0;
      std::copy(dk.begin(), dk.begin() + nk * g.head_dim, grad_k + base * g.head_dim);
      std::copy(dv.begin(), dv.begin() + nk * g.value_dim, grad_v + base * g.value_dim);
    }
  });

  // Pass 2: dQ, one task per query block of one (batch, query head).
  const int64_t q_blocks = (g.q_len + kQueryBlock - 1) / kQueryBlock;
  parallel_for(g.batch * g.q_heads * q_blocks, work, [&](int64_t begin, int64_t end) {
    std::vector<T> s(kQueryBlock * o.kb), dp(s.size()), dq(kQueryBlock * g.head_dim);
    for (int64_t t = begin; t < end; ++t) {
      const int64_t bh = t / q_blocks, b = bh / g.q_heads, h = bh % g.q_heads;
      const int64_t i0 = (t % q_blocks) * kQueryBlock, nq = std::min(kQueryBlock, g.q_len - i0);
      std::fill(dq.begin(), dq.end(), T(0));
      const int64_t end_key = key_end(g, i0, nq);
      for (int64_t j0 = 0; j0 < end_key; j0 += o.kb) {
        const int64_t nk = std::min(o.kb, end_key - j0);
        block_gradient(o, lse, delta.data(), grad_out, b, h, i0, nq, j0, nk, s.data(), dp.data(),
                       static_cast<T*>(nullptr));
        gemm(false, false, nq, g.head_dim, nk, scale, dp.data(), o.kb, o.k_at(b, h, j0), g.head_dim,
             T(1), dq.data(), g.head_dim);
      }
      std::copy(dq.begin(), dq.begin() + nq * g.head_dim, grad_q + o.row(b, h, i0) * g.head_dim);
    }
  });
}

bool is_16bit(const Tensor& t) {
  return t.scalar_type() == kHalf || t.scalar_type() == kBFloat16;
}

}  // namespace

void CpuBackend::attention(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                           const Tensor& v, const Tensor& mask, const AttentionGeometry& g) {
  if (out.numel() == 0) return;
  if (is_16bit(q)) {  // on float32 copies, rounded once on the way out
    auto widen = [&](const Tensor& t) {
      Tensor f = make_empty(t.sizes(), kFloat, t.device());
      copy(f, t, false);
      return f;
    };
    Tensor out32 = make_empty(out.sizes(), kFloat, out.device());
    attention(out32, lse, widen(q), widen(k), widen(v), mask, g);
    copy(out, out32, false);
    return;
  }
  if (q.scalar_type() == kDouble) {
    const Operands<double> o{g, q.data_ptr<double>(), k.data_ptr<double>(), v.data_ptr<double>(),
                             g.has_mask ? mask.data_ptr<double>() : nullptr};
    forward(o, out.data_ptr<double>(), lse.data_ptr<double>());
  } else {
    const Operands<float> o{g, q.data_ptr<float>(), k.data_ptr<float>(), v.data_ptr<float>(),
                            g.has_mask ? mask.data_ptr<float>() : nullptr};
    forward(o, out.data_ptr<float>(), lse.data_ptr<float>());
  }
}

void CpuBackend::attention_backward(const Tensor& grad_q, const Tensor& grad_k,
                                    const Tensor& grad_v, const Tensor& grad_out, const Tensor& q,
                                    const Tensor& k, const Tensor& v, const Tensor& out,
                                    const Tensor& lse, const Tensor& mask,
                                    const AttentionGeometry& g) {
  if (is_16bit(q)) {
    auto widen = [&](const Tensor& t) {
      Tensor f = make_empty(t.sizes(), kFloat, t.device());
      copy(f, t, false);
      return f;
    };
    Tensor gq = make_empty(grad_q.sizes(), kFloat, q.device());
    Tensor gk = make_empty(grad_k.sizes(), kFloat, q.device());
    Tensor gv = make_empty(grad_v.sizes(), kFloat, q.device());
    attention_backward(gq, gk, gv, widen(grad_out), widen(q), widen(k), widen(v), widen(out), lse,
                       mask, g);
    copy(grad_q, gq, false);
    copy(grad_k, gk, false);
    copy(grad_v, gv, false);
    return;
  }
  if (q.scalar_type() == kDouble) {
    const Operands<double> o{g, q.data_ptr<double>(), k.data_ptr<double>(), v.data_ptr<double>(),
                             g.has_mask ? mask.data_ptr<double>() : nullptr};
    backward(o, out.data_ptr<double>(), lse.data_ptr<double>(), grad_out.data_ptr<double>(),
             grad_q.data_ptr<double>(), grad_k.data_ptr<double>(), grad_v.data_ptr<double>());
  } else {
    const Operands<float> o{g, q.data_ptr<float>(), k.data_ptr<float>(), v.data_ptr<float>(),
                            g.has_mask ? mask.data_ptr<float>() : nullptr};
    backward(o, out.data_ptr<float>(), lse.data_ptr<float>(), grad_out.data_ptr<float>(),
             grad_q.data_ptr<float>(), grad_k.data_ptr<float>(), grad_v.data_ptr<float>());
  }
}

}  // namespace ember::cpu
