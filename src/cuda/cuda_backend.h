#pragma once
// The CUDA backend: one file per op family, mirroring src/cpu (unary.cu, binary.cu, copy.cpp +
// cast.cu, reduce.cu, random.cu, index.cu, sort.cu, scan.cu, blas.cpp). Every kernel and copy is
// queued on the current stream of the output's device; nothing waits for the GPU unless the copy is
// blocking.
#include "core/backend.h"

namespace ember::cuda {

class CudaBackend final : public Backend {
 public:
  Allocator* allocator(Device device) override;
  void fill(const Tensor& out, const Scalar& value) override;
  void copy(const Tensor& dst, const Tensor& src, bool non_blocking) override;
  void unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p) override;
  void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
              OpParams p) override;
  void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) override;
  void reduce(ReduceOp op, const Tensor& out, const Tensor& in) override;
  void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in,
                  int64_t dim) override;
  void gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha,
            double beta) override;
  void arange(const Tensor& out, const Scalar& start, const Scalar& step) override;
  void random(const Tensor& out, RandomKind kind, double a, double b, uint64_t seed,
              uint64_t offset) override;
  void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) override;
  void index_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) override;
  void index_copy(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) override;
  Tensor nonzero(const Tensor& mask) override;
  void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) override;
  void scatter_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) override;
  void sort(const Tensor& values, const Tensor& indices, const Tensor& in,
            bool descending) override;
  void scan(ScanOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t D,
            int64_t inner) override;
  void softmax(const Tensor& out, const Tensor& in, int64_t outer, int64_t D, int64_t inner,
               bool log_space) override;
  void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out,
                        int64_t outer, int64_t D, int64_t inner, bool log_space) override;
  void im2col(const Tensor& cols, const Tensor& in, const Window2d& g) override;
  void col2im(const Tensor& out, const Tensor& cols, const Window2d& g) override;
  void max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& in,
                  const Window2d& g) override;
  void max_pool2d_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& indices,
                           const Window2d& g) override;
  void non_finite_check_and_unscale(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                    const Tensor& inv_scale) override;
  void update_scale(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                    double growth_factor, double backoff_factor, int64_t growth_interval) override;
};

// Same-device elementwise cast copy (any dtypes, any strides, src broadcast to dst); cast.cu.
void cast_copy(const Tensor& dst, const Tensor& src);
// All operands must be CUDA tensors on out's device (a 0-dim CPU tensor is not accepted here:
// front ends turn those into scalars). Throws PyTorch's device-mismatch message.
void check_operands(const char* op, std::initializer_list<const Tensor*> tensors);

}  // namespace ember::cuda
