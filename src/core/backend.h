#pragma once
// A backend implements op families (not single ops) for one device type. Front ends in src/ops
// have already checked devices and dtypes, promoted, broadcast (zero strides) and allocated `out`.
#include <cstdint>
#include <vector>

#include "core/device_audit.h"
#include "ember/tensor.h"
#include "kernel_math/ops_list.h"
#include "kernel_math/window2d.h"

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

class Backend {
 public:
  virtual ~Backend() = default;
  virtual Allocator* allocator(Device device) = 0;

  // out[i] = value.
  virtual void fill(const Tensor& out, const Scalar& value) = 0;
  // dst = src (same shape; dtypes may differ: cast; devices may differ when one side is CUDA).
  virtual void copy(const Tensor& dst, const Tensor& src, bool non_blocking) = 0;
  // out = op(in); `out` has its final dtype (bool for IsNan/LogicalNot), `in` the compute dtype.
  virtual void unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p) = 0;
  // out = op(a, b); a and b have the compute dtype and out's shape (broadcast by strides).
  virtual void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                      OpParams p) = 0;
  // out = cond ? a : b, all of out's shape; cond is bool.
  virtual void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) = 0;
  // Reduces `in` into `out`, where out.sizes() equals in.sizes() with the reduced dims set to 1.
  virtual void reduce(ReduceOp op, const Tensor& out, const Tensor& in) = 0;
  // Index of the max (or min) along `dim`; values and indices have in's shape with dim = 1.
  virtual void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices,
                          const Tensor& in, int64_t dim) = 0;
  // out[b] = alpha * a[b] @ b[b] + beta * out[b] for 3-D tensors [B,M,K] x [B,K,N] -> [B,M,N];
  // a or b may have batch 1 (shared by every b). When out has batch 1 but a or b has B > 1, the
  // products are summed: out[0] = alpha * sum_b a[b] @ b[b] + beta * out[0] (a weight gradient).
  virtual void gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha,
                    double beta) = 0;
  // out[i] = start + i * step over a contiguous 1-D out; in int64 for integer dtypes when start
  // and step are whole (core/arange_int.h), else in double.
  virtual void arange(const Tensor& out, const Scalar& start, const Scalar& step) = 0;
  // Philox stream `seed`, starting at counter `offset` (in units of 4 numbers).
  virtual void random(const Tensor& out, RandomKind kind, double a, double b, uint64_t seed,
                      uint64_t offset) = 0;
  // out = in.index_select(dim, index) ; index is int64, 1-D.
  virtual void index_select(const Tensor& out, const Tensor& in, int64_t dim,
                            const Tensor& index) = 0;
  // out.index_add_(dim, index, src)
  virtual void index_add(const Tensor& out, int64_t dim, const Tensor& index,
                         const Tensor& src) = 0;
  // out.index_copy_(dim, index, src): out's slices at `index` along dim become src's. Where an
  // index repeats, the last slice wins on the CPU; which one is unspecified on CUDA (as PyTorch).
  virtual void index_copy(const Tensor& out, int64_t dim, const Tensor& index,
                          const Tensor& src) = 0;
  // The coordinates of the true elements of `mask` (bool, contiguous) in row-major order: int64
  // [n, mask.dim()] on mask's device. Counts, then compacts; learning n makes the host wait for
  // the device (as PyTorch's nonzero does, its output's size depends on it).
  virtual Tensor nonzero(const Tensor& mask) = 0;
  // out = in.gather(dim, index)
  virtual void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) = 0;
  // out.scatter_add_(dim, index, src)
  virtual void scatter_add(const Tensor& out, int64_t dim, const Tensor& index,
                           const Tensor& src) = 0;
  // Sorts each row of `in`, a contiguous [..., D] tensor, along its last dim into values (in's
  // dtype) and indices (int64, each element's position in its row), both contiguous of in's
  // shape, in kernel_math/sort_order.h's order: stable, NaN greatest.
  virtual void sort(const Tensor& values, const Tensor& indices, const Tensor& in,
                    bool descending) = 0;
  // Inclusive scan (running sum or product) along the middle dim of in viewed as [outer, D, inner];
  // in and out contiguous, one dtype (not bool), accumulated in kernel_math/scan_acc.h's type.
  virtual void scan(ScanOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t D,
                    int64_t inner) = 0;
  // Sliding windows (kernel_math/window2d.h has the layouts); floating dtypes, contiguous tensors.
  // cols [N, K, L] = the window elements of in [N, C, H, W], zero where a window covers padding.
  virtual void im2col(const Tensor& cols, const Tensor& in, const Window2d& g) = 0;
  // out [N, C, H, W] = for each input element, the sum of the cols entries im2col copied from it.
  virtual void col2im(const Tensor& out, const Tensor& cols, const Window2d& g) = 0;
  // Softmax (log_softmax when log_space) along the middle dim of in viewed as [outer, D, inner]
  // (kernel_math/softmax_row.h has the math); in and out contiguous, one floating dtype.
  virtual void softmax(const Tensor& out, const Tensor& in, int64_t outer, int64_t D, int64_t inner,
                       bool log_space) = 0;
  // Its gradient from grad_out and the forward's output out, in the same layout.
  virtual void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out,
                                int64_t outer, int64_t D, int64_t inner, bool log_space) = 0;
  // values and indices [P, out_h, out_w]: each window's maximum over in [P, H, W] and its flat
  // position h * W + w (int64), as window_argmax chooses it.
  virtual void max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& in,
                          const Window2d& g) = 0;
  // grad_in [P, H, W] = zeros with grad_out [P, out_h, out_w] added at indices (max_pool2d's).
  virtual void max_pool2d_backward(const Tensor& grad_in, const Tensor& grad_out,
                                   const Tensor& indices, const Window2d& g) = 0;
  // Mixed precision (amp::GradScaler). Every tensor of `grads` (dense, one floating dtype, this
  // device) is multiplied in place by inv_scale[0] in one pass over all of them; found_inf[0]
  // (float32) becomes 1 when any element was inf or NaN. PyTorch's
  // _amp_foreach_non_finite_check_and_unscale_.
  virtual void non_finite_check_and_unscale(const std::vector<Tensor>& grads,
                                            const Tensor& found_inf, const Tensor& inv_scale) = 0;
  // PyTorch's _amp_update_scale_ on scale[0] (float32) and growth_tracker[0] (int32): backoff
  // after an overflow, growth after growth_interval clean steps, all on the device.
  virtual void update_scale(const Tensor& scale, const Tensor& growth_tracker,
                            const Tensor& found_inf, double growth_factor, double backoff_factor,
                            int64_t growth_interval) = 0;
};

EMBER_API Backend& cpu_backend();
// Meta tensors: shapes without data; every kernel is skipped (src/meta).
EMBER_API Backend& meta_backend();
// Implemented by src/cuda (the real backend) or src/cuda_stub (throws, saying why).
EMBER_API Backend& cuda_backend();
// While a listener is attached (core/listener.h): its wrapper of `b`, which records every call as
// an op (src/profiler/profiled_backend.cpp; a method added to Backend is added there too); else
// `b`.
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
