// While a profile records, backend_for() hands out this wrapper (through the listener,
// core/listener.h) instead of the backend: every
// call becomes an op range named as PyTorch users know it (ember::add, ember::mm, ember::copy_),
// on the device of its first CUDA tensor (else the CPU), with its inputs' shapes when asked.
// Every op front end reaches its backend through backend_for(), so this one place times them all.
#include "core/backend.h"
#include "profiler/hooks.h"
#include "profiler/op_names.h"
#include "profiler/range.h"
#include "profiler/session.h"

namespace ember {
namespace profiler::detail {
namespace {

using TensorRefs = std::initializer_list<std::reference_wrapper<const Tensor>>;

Device device_of(TensorRefs tensors) {
  for (const Tensor& t : tensors) {
    if (t.defined() && t.is_cuda()) return t.device();
  }
  return Device(kCPU);
}

// The range of one backend call: `on` picks the device, `inputs` are the recorded shapes.
class OpRange {
 public:
  OpRange(const char* name, TensorRefs on, TensorRefs inputs)
      : range_(name, EventKind::Op, device_of(on)) {
    if (!range_.session()) return;
    for (const Tensor& t : on) claim_output(range_, t);
    if (!range_.records_shapes()) return;
    for (const Tensor& t : inputs) range_.add_input(t);
  }

 private:
  Range range_;
};

class ProfiledBackend final : public Backend {
 public:
  explicit ProfiledBackend(Backend& inner) : inner_(inner) {}

  Allocator* allocator(Device device) override { return inner_.allocator(device); }
  void fill(const Tensor& out, const Scalar& value) override {
    OpRange r("ember::fill_", {out}, {out});
    inner_.fill(out, value);
  }
  void copy(const Tensor& dst, const Tensor& src, bool non_blocking) override {
    OpRange r("ember::copy_", {dst, src}, {dst, src});
    inner_.copy(dst, src, non_blocking);
  }
  void unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p) override {
    OpRange r(op_name(op), {out}, {in});
    inner_.unary(op, out, in, p);
  }
  void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
              OpParams p) override {
    OpRange r(op_name(op), {out}, {a, b});
    inner_.binary(op, out, a, b, p);
  }
  void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) override {
    OpRange r("ember::where", {out}, {cond, a, b});
    inner_.where(out, cond, a, b);
  }
  void reduce(ReduceOp op, const Tensor& out, const Tensor& in) override {
    OpRange r(op_name(op), {out}, {in});
    inner_.reduce(op, out, in);
  }
  void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in,
                  int64_t dim) override {
    OpRange r(is_max ? "ember::argmax" : "ember::argmin", {values}, {in});
    inner_.arg_reduce(is_max, values, indices, in, dim);
  }
  void gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha,
            double beta) override {
    const bool batched = out.size(0) > 1;
    const char* name = beta != 0 ? (batched ? "ember::baddbmm" : "ember::addmm")
                                 : (batched ? "ember::bmm" : "ember::mm");
    OpRange r(name, {out}, {a, b});
    inner_.gemm(out, a, b, alpha, beta);
  }
  void arange(const Tensor& out, const Scalar& start, const Scalar& step) override {
    OpRange r("ember::arange", {out}, {out});
    inner_.arange(out, start, step);
  }
  void random(const Tensor& out, RandomKind kind, double a, double b, uint64_t seed,
              uint64_t offset) override {
    const char* name = kind == RandomKind::Uniform  ? "ember::uniform_"
                       : kind == RandomKind::Normal ? "ember::normal_"
                                                    : "ember::random_";
    OpRange r(name, {out}, {out});
    inner_.random(out, kind, a, b, seed, offset);
  }
  void index_select(const Tensor& out, const Tensor& in, int64_t dim,
                    const Tensor& index) override {
    OpRange r("ember::index_select", {out}, {in, index});
    inner_.index_select(out, in, dim, index);
  }
  void index_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) override {
    OpRange r("ember::index_add_", {out}, {out, index, src});
    inner_.index_add(out, dim, index, src);
  }
  void index_copy(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) override {
    OpRange r("ember::index_copy_", {out}, {out, index, src});
    inner_.index_copy(out, dim, index, src);
  }
  Tensor nonzero(const Tensor& mask) override {
    OpRange r("ember::nonzero", {mask}, {mask});
    return inner_.nonzero(mask);
  }
  void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) override {
    OpRange r("ember::gather", {out}, {in, index});
    inner_.gather(out, in, dim, index);
  }
  void sort(const Tensor& values, const Tensor& indices, const Tensor& in,
            bool descending) override {
    OpRange r("ember::sort", {values}, {in});
    inner_.sort(values, indices, in, descending);
  }
  void scan(ScanOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t D,
            int64_t inner) override {
    OpRange r(op == ScanOp::Sum ? "ember::cumsum" : "ember::cumprod", {out}, {in});
    inner_.scan(op, out, in, outer, D, inner);
  }
  void scatter_add(const Tensor& out, int64_t dim, const Tensor& index,
                   const Tensor& src) override {
    OpRange r("ember::scatter_add_", {out}, {out, index, src});
    inner_.scatter_add(out, dim, index, src);
  }
  void im2col(const Tensor& cols, const Tensor& in, const Window2d& g) override {
    OpRange r("ember::im2col", {cols}, {in});
    inner_.im2col(cols, in, g);
  }
  void col2im(const Tensor& out, const Tensor& cols, const Window2d& g) override {
    OpRange r("ember::col2im", {out}, {cols});
    inner_.col2im(out, cols, g);
  }
  void softmax(const Tensor& out, const Tensor& in, int64_t outer, int64_t D, int64_t inner,
               bool log_space) override {
    OpRange r(log_space ? "ember::_log_softmax" : "ember::_softmax", {out}, {in});
    inner_.softmax(out, in, outer, D, inner, log_space);
  }
  void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out,
                        int64_t outer, int64_t D, int64_t inner, bool log_space) override {
    OpRange r(log_space ? "ember::_log_softmax_backward_data" : "ember::_softmax_backward_data",
              {grad_in}, {grad_out, out});
    inner_.softmax_backward(grad_in, grad_out, out, outer, D, inner, log_space);
  }
  void max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& in,
                  const Window2d& g) override {
    OpRange r("ember::max_pool2d_with_indices", {values}, {in});
    inner_.max_pool2d(values, indices, in, g);
  }
  void max_pool2d_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& indices,
                           const Window2d& g) override {
    OpRange r("ember::max_pool2d_with_indices_backward", {grad_in}, {grad_out, indices});
    inner_.max_pool2d_backward(grad_in, grad_out, indices, g);
  }
  void non_finite_check_and_unscale(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                    const Tensor& inv_scale) override {
    OpRange r("ember::_amp_foreach_non_finite_check_and_unscale_", {found_inf},
              {found_inf, inv_scale});
    inner_.non_finite_check_and_unscale(grads, found_inf, inv_scale);
  }
  void update_scale(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                    double growth_factor, double backoff_factor, int64_t growth_interval) override {
    OpRange r("ember::_amp_update_scale_", {scale}, {scale, growth_tracker, found_inf});
    inner_.update_scale(scale, growth_tracker, found_inf, growth_factor, backoff_factor,
                        growth_interval);
  }

 private:
  Backend& inner_;
};

}  // namespace

Backend& wrap_backend(Backend& b) {
  if (!enabled()) return b;
  static ProfiledBackend cpu(cpu_backend());
  if (&b == &cpu_backend()) return cpu;
  static ProfiledBackend meta(meta_backend());
  if (&b == &meta_backend()) return meta;
  static ProfiledBackend cuda(b);  // the only other backend
  return cuda;
}

}  // namespace profiler::detail
}  // namespace ember
