// The meta backend: tensors with sizes, strides and a dtype but no memory. Front ends have already
// computed every output's shape and dtype and allocated it (a storage of the right byte count and
// no pointer), so each kernel is simply not run. What needs values fails by name: copying out of
// meta, nonzero (its result's size depends on the data), and data_ptr() (TensorImpl::data).
#include "core/backend.h"
#include "ember/error.h"

namespace ember {
namespace {

class MetaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t) override { return DataPtr(nullptr, nullptr, nullptr, Device(kMeta)); }
};

class MetaBackend final : public Backend {
 public:
  Allocator* allocator(Device) override { return &allocator_; }
  void fill(const Tensor&, const Scalar&) override {}
  void copy(const Tensor& dst, const Tensor& src, bool) override {
    // Into meta from anywhere is a shape-only copy; out of meta there is nothing to copy.
    if (!dst.is_meta()) {
      throw NotImplementedError(
          detail::str_cat("Cannot copy out of meta tensor; no data! (a meta tensor of sizes ",
                          src.sizes(), " copied to ", dst.device(), ")"));
    }
  }
  void unary(UnaryOp, const Tensor&, const Tensor&, OpParams) override {}
  void binary(BinaryOp, const Tensor&, const Tensor&, const Tensor&, OpParams) override {}
  void where(const Tensor&, const Tensor&, const Tensor&, const Tensor&) override {}
  void reduce(ReduceOp, const Tensor&, const Tensor&) override {}
  void arg_reduce(bool, const Tensor&, const Tensor&, const Tensor&, int64_t) override {}
  void gemm(const Tensor&, const Tensor&, const Tensor&, double, double) override {}
  void arange(const Tensor&, const Scalar&, const Scalar&) override {}
  void random(const Tensor&, RandomKind, double, double, uint64_t, uint64_t) override {}
  void index_select(const Tensor&, const Tensor&, int64_t, const Tensor&) override {}
  void index_add(const Tensor&, int64_t, const Tensor&, const Tensor&) override {}
  void index_copy(const Tensor&, int64_t, const Tensor&, const Tensor&) override {}
  Tensor nonzero(const Tensor& mask) override {
    throw NotImplementedError(detail::str_cat(
        "nonzero is not supported on meta tensors: the size of its result depends on the data "
        "(a meta mask of sizes ",
        mask.sizes(), ")"));
  }
  void gather(const Tensor&, const Tensor&, int64_t, const Tensor&) override {}
  void scatter_add(const Tensor&, int64_t, const Tensor&, const Tensor&) override {}
  void sort(const Tensor&, const Tensor&, const Tensor&, bool) override {}
  void scan(ScanOp, const Tensor&, const Tensor&, int64_t, int64_t, int64_t) override {}
  void im2col(const Tensor&, const Tensor&, const Window2d&) override {}
  void col2im(const Tensor&, const Tensor&, const Window2d&) override {}
  void softmax(const Tensor&, const Tensor&, int64_t, int64_t, int64_t, bool) override {}
  void softmax_backward(const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t, int64_t,
                        bool) override {}
  void max_pool2d(const Tensor&, const Tensor&, const Tensor&, const Window2d&) override {}
  void max_pool2d_backward(const Tensor&, const Tensor&, const Tensor&, const Window2d&) override {}
  void non_finite_check_and_unscale(const std::vector<Tensor>&, const Tensor&,
                                    const Tensor&) override {}
  void update_scale(const Tensor&, const Tensor&, const Tensor&, double, double, int64_t) override {
  }

 private:
  MetaAllocator allocator_;
};

}  // namespace

Backend& meta_backend() {
  static MetaBackend backend;
  return backend;
}

}  // namespace ember
