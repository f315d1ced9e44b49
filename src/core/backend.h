#pragma once
// A backend implements op families (not single ops) for one device type. Front ends in src/ops
// have already checked devices and dtypes, promoted, broadcast (zero strides) and allocated `out`.
#include <cstdint>
#include <vector>

#include "core/device_audit.h"
#include "ember/tensor.h"
#include "kernel_math/attention.h"
#include "kernel_math/ops_list.h"
#include "kernel_math/row_norm.h"
#include "kernel_math/window.h"

namespace ember {

enum class RandomKind : int { Uniform, Normal, RandInt };

// randint's [low, high): checked here once, for the front end and for both backends' kernels
// (which get the bounds as Backend::random's doubles). The width high - low is counted in uint64,
// where it cannot overflow (randint(INT64_MIN, INT64_MAX)).
struct RandIntRange {
  int64_t low;
  uint64_t range;
};
inline RandIntRange randint_range(int64_t low, int64_t high) {
  EMBER_CHECK(low < high, ValueError,
              "random_ expects 'from' to be less than 'to', but got from=", low, " >= to=", high);
  return {low, static_cast<uint64_t>(high) - static_cast<uint64_t>(low)};
}

// The op families, one row each: every backend's virtuals, the meta backend's shape-only bodies
// and the profiler's forwarders expand from this list, so adding a family is one row here and its
// CPU and CUDA definitions (src/cpu, src/cuda). Columns:
//   name, return type, (parameters), (the same names, to forward them),
//   the profiler's label (an expression of the parameters; op_name() and the *_label() helpers
//   are src/profiler's), (the tensors the profiler charges: outputs, whose device it shows),
//   (the inputs whose shapes it records),
//   meta: meta_skip (meta runs no kernel: an empty body) or meta_by_hand (src/meta writes it).
// Backend::allocator and has_convolution are not families (no kernel, no profiler op) and are
// written by hand.
// clang-format off
#define EMBER_BACKEND_FAMILIES(X)                                                                  \
  /* out[i] = value. */                                                                            \
  X(fill, void, (const Tensor& out, const Scalar& value), (out, value),                            \
    "ember::fill_", (out), (out), meta_skip)                                                       \
  /* dst = src (same shape; dtypes may differ: cast; devices may differ when one side is CUDA). */ \
  X(copy, void, (const Tensor& dst, const Tensor& src, bool non_blocking),                         \
    (dst, src, non_blocking),                                                                      \
    "ember::copy_", (dst, src), (dst, src), meta_by_hand)                                          \
  /* out = op(in); `out` has its final dtype (bool for IsNan/LogicalNot), `in` the compute */      \
  /* dtype. */                                                                                     \
  X(unary, void, (UnaryOp op, const Tensor& out, const Tensor& in, OpParams p), (op, out, in, p),  \
    op_name(op), (out), (in), meta_skip)                                                           \
  /* out = op(a, b); a and b have the compute dtype and out's shape (broadcast by strides). */     \
  X(binary, void, (BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams p),  \
    (op, out, a, b, p), op_name(op), (out), (a, b), meta_skip)                                     \
  /* out = cond ? a : b, all of out's shape; cond is bool. */                                      \
  X(where, void, (const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b),        \
    (out, cond, a, b), "ember::where", (out), (cond, a, b), meta_skip)                             \
  /* Reduces `in` into `out`, where out.sizes() equals in.sizes() with the reduced dims set to */  \
  /* 1. */                                                                                         \
  X(reduce, void, (ReduceOp op, const Tensor& out, const Tensor& in), (op, out, in),               \
    op_name(op), (out), (in), meta_skip)                                                           \
  /* Index of the max (or min) along `dim`; values and indices have in's shape with dim = 1. */    \
  X(arg_reduce, void,                                                                              \
    (bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim),     \
    (is_max, values, indices, in, dim), is_max ? "ember::argmax" : "ember::argmin",                \
    (values), (in), meta_skip)                                                                     \
  /* out[b] = alpha * a[b] @ b[b] + beta * out[b] for 3-D tensors [B,M,K] x [B,K,N] -> [B,M,N]; */ \
  /* a or b may have batch 1 (shared by every b). When out has batch 1 but a or b has B > 1, */    \
  /* the products are summed: out[0] = alpha * sum_b a[b] @ b[b] + beta * out[0] (a weight */      \
  /* gradient). */                                                                                 \
  X(gemm, void, (const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta),  \
    (out, a, b, alpha, beta), gemm_label(out, beta), (out), (a, b), meta_skip)                     \
  /* out[i] = start + i * step over a contiguous 1-D out; in int64 for integer dtypes when */      \
  /* start and step are whole (core/arange_int.h), else in double. */                              \
  X(arange, void, (const Tensor& out, const Scalar& start, const Scalar& step),                    \
    (out, start, step), "ember::arange", (out), (out), meta_skip)                                  \
  /* Philox stream `seed`, starting at counter `offset` (in units of 4 numbers). */                \
  X(random, void,                                                                                  \
    (const Tensor& out, RandomKind kind, double a, double b, uint64_t seed, uint64_t offset),      \
    (out, kind, a, b, seed, offset), random_label(kind), (out), (out), meta_skip)                  \
  /* out = in.index_select(dim, index) ; index is int64, 1-D. */                                   \
  X(index_select, void, (const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index),   \
    (out, in, dim, index), "ember::index_select", (out), (in, index), meta_skip)                   \
  /* out.index_add_(dim, index, src) */                                                            \
  X(index_add, void, (const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src),     \
    (out, dim, index, src), "ember::index_add_", (out), (out, index, src), meta_skip)              \
  /* out.index_copy_(dim, index, src): out's slices at `index` along dim become src's. Where an */ \
  /* index repeats, the last slice wins on the CPU; which one is unspecified on CUDA (as */        \
  /* PyTorch). */                                                                                  \
  X(index_copy, void, (const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src),    \
    (out, dim, index, src), "ember::index_copy_", (out), (out, index, src), meta_skip)             \
  /* The coordinates of the true elements of `mask` (bool, contiguous) in row-major order: */      \
  /* int64 [n, mask.dim()] on mask's device. Counts, then compacts; learning n makes the host */   \
  /* wait for the device (as PyTorch's nonzero does, its output's size depends on it). */          \
  X(nonzero, Tensor, (const Tensor& mask), (mask),                                                 \
    "ember::nonzero", (mask), (mask), meta_by_hand)                                                \
  /* out = in.gather(dim, index) */                                                                \
  X(gather, void, (const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index),         \
    (out, in, dim, index), "ember::gather", (out), (in, index), meta_skip)                         \
  /* out.scatter_add_(dim, index, src) */                                                          \
  X(scatter_add, void, (const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src),   \
    (out, dim, index, src), "ember::scatter_add_", (out), (out, index, src), meta_skip)            \
  /* Sorts each row of `in`, a contiguous [..., D] tensor, along its last dim into values (in's */ \
  /* dtype) and indices (int64, each element's position in its row), both contiguous of in's */    \
  /* shape, in kernel_math/sort_order.h's order: stable, NaN greatest. */                          \
  X(sort, void, (const Tensor& values, const Tensor& indices, const Tensor& in, bool descending),  \
    (values, indices, in, descending), "ember::sort", (values), (in), meta_skip)                   \
  /* Inclusive scan (running sum or product) along the middle dim of in viewed as [outer, D, */    \
  /* inner]; in and out contiguous, one dtype (not bool), accumulated in */                        \
  /* kernel_math/scan_acc.h's type. */                                                             \
  X(scan, void,                                                                                    \
    (ScanOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t D, int64_t inner),     \
    (op, out, in, outer, D, inner), op == ScanOp::Sum ? "ember::cumsum" : "ember::cumprod",        \
    (out), (in), meta_skip)                                                                        \
  /* Sliding windows (kernel_math/window.h has the layouts); floating dtypes, contiguous */        \
  /* tensors. cols [N, K, L] = the window elements of in [N, C, H, W], zero where a window */      \
  /* covers padding. */                                                                            \
  X(im2col, void, (const Tensor& cols, const Tensor& in, const Window& g), (cols, in, g),          \
    "ember::im2col", (cols), (in), meta_skip)                                                      \
  /* out [N, C, H, W] = for each input element, the sum of the cols entries im2col copied from */  \
  /* it. */                                                                                        \
  X(col2im, void, (const Tensor& out, const Tensor& cols, const Window& g), (out, cols, g),        \
    "ember::col2im", (out), (cols), meta_skip)                                                     \
  /* Softmax (log_softmax when log_space) along the middle dim of in viewed as [outer, D, */       \
  /* inner] (kernel_math/softmax_row.h has the math); in and out contiguous, one floating */       \
  /* dtype. */                                                                                     \
  X(softmax, void,                                                                                 \
    (const Tensor& out, const Tensor& in, int64_t outer, int64_t D, int64_t inner,                 \
     bool log_space),                                                                              \
    (out, in, outer, D, inner, log_space),                                                         \
    log_space ? "ember::_log_softmax" : "ember::_softmax", (out), (in), meta_skip)                 \
  /* Its gradient from grad_out and the forward's output out, in the same layout. */               \
  X(softmax_backward, void,                                                                        \
    (const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, int64_t outer, int64_t D,   \
     int64_t inner, bool log_space),                                                               \
    (grad_in, grad_out, out, outer, D, inner, log_space),                                          \
    log_space ? "ember::_log_softmax_backward_data" : "ember::_softmax_backward_data",             \
    (grad_in), (grad_out, out), meta_skip)                                                         \
  /* values and indices [P, out_h, out_w]: each window's maximum over in [P, H, W] and its flat */ \
  /* position h * W + w (int64), as window_argmax chooses it. */                                   \
  X(max_pool2d, void,                                                                              \
    (const Tensor& values, const Tensor& indices, const Tensor& in, const Window& g),              \
    (values, indices, in, g), "ember::max_pool2d_with_indices", (values), (in), meta_skip)         \
  /* grad_in [P, D, H, W] = zeros with grad_out added at indices (max_pool2d's). */                \
  X(max_pool2d_backward, void,                                                                     \
    (const Tensor& grad_in, const Tensor& grad_out, const Tensor& indices, const Window& g),       \
    (grad_in, grad_out, indices, g), "ember::max_pool2d_with_indices_backward", (grad_in),         \
    (grad_out, indices), meta_skip)                                                                \
  /* Direct convolution, only where has_convolution() said yes (else the front end composes */   \
  /* im2col and a GEMM): out [N, O, D', H', W'] = in [N, C, D, H, W] (contiguous; g.channels */    \
  /* == C) convolved with weight [O, C / groups, kd, kh, kw] over g's windows, plus bias [O] */    \
  /* where defined. 2-D convolutions come as D = kd = 1. */                                      \
  X(convolution, void,                                                                             \
    (const Tensor& out, const Tensor& in, const Tensor& weight, const Tensor& bias,               \
     const Window& g, int64_t groups),                                                             \
    (out, in, weight, bias, g, groups), "ember::convolution", (out), (in, weight), meta_skip)      \
  /* Its gradients from grad_out, in and weight, each computed only where defined; with no */    \
  /* grad_weight or grad_bias only in's shape is read (conv_transpose passes its output). */     \
  X(convolution_backward, void,                                                                    \
    (const Tensor& grad_in, const Tensor& grad_weight, const Tensor& grad_bias,                    \
     const Tensor& grad_out, const Tensor& in, const Tensor& weight, const Window& g,               \
     int64_t groups),                                                                              \
    (grad_in, grad_weight, grad_bias, grad_out, in, weight, g, groups),                            \
    "ember::convolution_backward", (grad_in, grad_weight, grad_bias), (grad_out, in, weight),      \
    meta_skip)                                                                                     \
  /* layer_norm, group_norm and instance_norm (kernel_math/row_norm.h has the math and which */  \
  /* weight element each element takes): every row of in [rows, row_size] (contiguous, float32 */ \
  /* or float64) normalised into out, scaled by weight and shifted by bias where they are */      \
  /* defined; mean and rstd [rows] in in's dtype, kept for the backward. */                       \
  X(row_norm, void,                                                                                \
    (const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& in,                  \
     const Tensor& weight, const Tensor& bias, const RowNormGeometry& g),                          \
    (out, mean, rstd, in, weight, bias, g), row_norm_label(g, false), (out, mean, rstd), (in),     \
    meta_skip)                                                                                     \
  /* Its gradients from grad_out and the forward's in, mean and rstd; each of grad_in, */         \
  /* grad_weight and grad_bias is computed only when defined (the others are not needed). */      \
  X(row_norm_backward, void,                                                                       \
    (const Tensor& grad_in, const Tensor& grad_weight, const Tensor& grad_bias,                    \
     const Tensor& grad_out, const Tensor& in, const Tensor& mean, const Tensor& rstd,             \
     const Tensor& weight, const RowNormGeometry& g),                                              \
    (grad_in, grad_weight, grad_bias, grad_out, in, mean, rstd, weight, g),                        \
    row_norm_label(g, true), (grad_in, grad_weight, grad_bias), (grad_out, in), meta_skip)         \
  /* Fused attention (kernel_math/attention.h has the layouts): out = softmax(q k^T * scale + */   \
  /* mask, causal) v with dropout, and each query's log-sum-exp in lse; no [L, S] buffer. */       \
  X(attention, void,                                                                               \
    (const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,      \
     const Tensor& mask, const AttentionGeometry& g),                                              \
    (out, lse, q, k, v, mask, g), "ember::_scaled_dot_product_flash_attention", (out), (q, k, v),  \
    meta_skip)                                                                                     \
  /* Its gradients from grad_out and the forward's out and lse, the probabilities recomputed */    \
  /* block by block; grad_q/k/v have q/k/v's layouts. */                                           \
  X(attention_backward, void,                                                                      \
    (const Tensor& grad_q, const Tensor& grad_k, const Tensor& grad_v, const Tensor& grad_out,     \
     const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out, const Tensor& lse,      \
     const Tensor& mask, const AttentionGeometry& g),                                              \
    (grad_q, grad_k, grad_v, grad_out, q, k, v, out, lse, mask, g),                                \
    "ember::_scaled_dot_product_flash_attention_backward", (grad_q), (grad_out, q, k, v),          \
    meta_skip)                                                                                     \
  /* LAPACK's getrf on a batch of square matrices, each stored column-major in `lu` [B, n, n] */ \
  /* (the front end passes A.mT().contiguous()), factorised in place with partial pivoting; */     \
  /* pivots [B, n] int32 (1-based rows swapped), info [B] int32 (the first zero pivot, or 0). */  \
  X(lu_factor, void, (const Tensor& lu, const Tensor& pivots, const Tensor& info),                 \
    (lu, pivots, info), "ember::linalg_lu_factor_ex", (lu), (lu), meta_skip)                       \
  /* Solves A X = B (transpose: A^T X = B) in place in x [B, k, n] (each right-hand side a */      \
  /* row: B column-major) from lu_factor's lu and pivots. */                                      \
  X(lu_solve, void, (const Tensor& x, const Tensor& lu, const Tensor& pivots, bool transpose),     \
    (x, lu, pivots, transpose), "ember::linalg_lu_solve", (x), (lu, x), meta_skip)                 \
  /* LAPACK's potrf: the lower Cholesky factor of each matrix of `factor` [B, n, n] (column- */  \
  /* major, as lu_factor's), in place below and on the diagonal (the rest is left); info [B] */  \
  /* int32: the order of the first leading minor that is not positive-definite, or 0. */        \
  X(cholesky, void, (const Tensor& factor, const Tensor& info), (factor, info),                    \
    "ember::linalg_cholesky_ex", (factor), (factor), meta_skip)                                    \
  /* The decompositions (src/ops/linalg_qr.cpp, linalg_eigh.cpp, linalg_svd.cpp), LAPACK's */   \
  /* layouts as above: an m x n matrix column-major is a row-major [n, m] buffer. geqrf: each */ \
  /* matrix of a [B, n, m] replaced in place by R (on and above the diagonal) and Householder */  \
  /* reflectors (below it); tau [B, min(m, n)] their scales. */                                  \
  X(geqrf, void, (const Tensor& a, const Tensor& tau), (a, tau), "ember::geqrf", (a, tau), (a),    \
    meta_skip)                                                                                     \
  /* orgqr: q [B, c, m] (c <= m columns, the first k = tau.size(1) of them geqrf's reflectors) */ \
  /* replaced by the first c columns of Q = H_1 ... H_k. */                                       \
  X(householder_product, void, (const Tensor& q, const Tensor& tau), (q, tau),                     \
    "ember::linalg_householder_product", (q), (q, tau), meta_skip)                                 \
  /* syevd: each symmetric matrix of vectors [B, n, n], read from its lower triangle, replaced */ \
  /* by its eigenvectors as columns; values [B, n] ascending; info [B] int32 (0, or no */         \
  /* convergence). */                                                                              \
  X(eigh, void, (const Tensor& vectors, const Tensor& values, const Tensor& info),                 \
    (vectors, values, info), "ember::linalg_eigh", (vectors, values, info), (vectors), meta_skip)  \
  /* gesdd, reduced: a [B, n, m] (overwritten) = U diag(s) Vh with u [B, k, m] (m x k), */      \
  /* s [B, k] descending, vh [B, n, k] (k x n), k = min(m, n); info [B] int32 (0, or no */        \
  /* convergence). u and vh undefined: the singular values alone. */                              \
  X(svd, void,                                                                                     \
    (const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info),     \
    (a, u, s, vh, info), "ember::_linalg_svd", (u, s, vh, info), (a), meta_skip)                   \
  /* Mixed precision (amp::GradScaler). Every tensor of `grads` (dense, one floating dtype, */     \
  /* this device) is multiplied in place by inv_scale[0] in one pass over all of them; */          \
  /* found_inf[0] (float32) becomes 1 when any element was inf or NaN. PyTorch's */                \
  /* _amp_foreach_non_finite_check_and_unscale_. */                                                \
  X(non_finite_check_and_unscale, void,                                                            \
    (const std::vector<Tensor>& grads, const Tensor& found_inf, const Tensor& inv_scale),          \
    (grads, found_inf, inv_scale), "ember::_amp_foreach_non_finite_check_and_unscale_",            \
    (found_inf), (found_inf, inv_scale), meta_skip)                                                \
  /* PyTorch's _amp_update_scale_ on scale[0] (float32) and growth_tracker[0] (int32): backoff */  \
  /* after an overflow, growth after growth_interval clean steps, all on the device. */            \
  X(update_scale, void,                                                                            \
    (const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,                   \
     double growth_factor, double backoff_factor, int64_t growth_interval),                        \
    (scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval),            \
    "ember::_amp_update_scale_", (scale), (scale, growth_tracker, found_inf), meta_skip)
// clang-format on

// A family as a pure virtual of Backend, and as the declaration of a backend's definition of it.
#define EMBER_BACKEND_PURE_VIRTUAL(name, ret, params, ...) virtual ret name params = 0;
#define EMBER_BACKEND_OVERRIDE(name, ret, params, ...) ret name params override;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual Allocator* allocator(Device device) = 0;
  // Whether the convolution families have a kernel for this case (in's dtype and device, g's
  // window, groups). Not a family: it runs nothing. Where it says no, the front end composes
  // im2col and a GEMM, so a backend without direct convolutions keeps the default.
  virtual bool has_convolution(const Tensor& in, const Window& g, int64_t groups) {
    (void)in, (void)g, (void)groups;
    return false;
  }
  EMBER_BACKEND_FAMILIES(EMBER_BACKEND_PURE_VIRTUAL)
};

EMBER_API Backend& cpu_backend();
// Meta tensors: shapes without data; every kernel is skipped (src/meta).
EMBER_API Backend& meta_backend();
// Implemented by src/cuda (the real backend) or src/cuda_stub (throws, saying why).
EMBER_API Backend& cuda_backend();
// While a listener is attached (core/listener.h): its wrapper of `b`, which records every call as
// an op (src/profiler/profiled_backend.cpp, generated from EMBER_BACKEND_FAMILIES); else `b`.
EMBER_API Backend& recording_backend(Backend& b);
// `b` as the profiler wants to see it, for code that picks a backend itself.
inline Backend& observed(Backend& b) {
  return audit::active() ? recording_backend(b) : b;
}
// One relaxed load when no audit or profile is open.
inline Backend& backend_for(Device d) {
  if (!audit::active()) {
    return d.is_cuda() ? cuda_backend() : d.is_meta() ? meta_backend() : cpu_backend();
  }
  if (d.is_cuda()) return recording_backend(cuda_backend());
  if (d.is_meta()) return recording_backend(meta_backend());
  audit::record_cpu_op();  // for TransferAudit's "ops ran on the CPU"
  return recording_backend(cpu_backend());
}
inline Backend& backend_for(const Tensor& t) {
  return backend_for(t.device());
}

}  // namespace ember
