#pragma once
// The CPU backend: one file per op family (unary.cpp, binary.cpp, copy.cpp, reduce.cpp, blas.cpp,
// random.cpp, index.cpp, sort.cpp, scan.cpp, window.cpp, amp.cpp), each defining its members of
// CpuBackend.
#include "core/backend.h"

namespace ember::cpu {

class CpuBackend final : public Backend {
 public:
  Allocator* allocator(Device) override { return cpu_allocator(); }
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

 private:
  // gemm's summed form (out has batch 1, a or b more).
  void gemm_summed(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta);

 public:
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

}  // namespace ember::cpu
