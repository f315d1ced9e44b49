// index_fill (a value into the slices an index names along a dim: a where() over a mask of those
// slices, so the value's gradient counts each slice once, as PyTorch's) and index_put (the
// out-of-place Tensor::index_put_). Gradients come from the ops composed.
#include "core/scalar_range.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"
#include "ops/elementwise.h"

namespace ember {

namespace {

// The bool mask, shaped to broadcast against self, of the slices `index` names along dim.
Tensor slice_mask(const Tensor& self, int64_t dim, const Tensor& index, const char* op) {
  EMBER_CHECK(index.dtype() == kLong, TypeError, op, "(): Expected dtype int64 for index (got ",
              python_name(index.dtype()), ")");
  EMBER_CHECK(index.dim() <= 1, IndexError, op,
              "(): Index has to be a vector/scalar (got an index of shape ", index.sizes(), ")");
  check_same_device(self, index, op);
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), op);
  const int64_t n = self.dim() == 0 ? 1 : self.size(d);
  Tensor idx = index.reshape({index.numel()});
  if (idx.numel() > 0 && !idx.is_meta()) {  // a meta index has no values to check
    Tensor bad = idx.lt(-n).logical_or(idx.ge(n));
    if (bad.any().item<bool>()) {
      EMBER_CHECK(false, IndexError, op, "(): index ", idx.index({bad})[0].item<int64_t>(),
                  " is out of bounds for dimension ", d, " with size ", n);
    }
  }
  idx = where(idx.lt(0), idx.add(n), idx);
  Tensor mask = zeros({n}, TensorOptions().dtype(kBool).device(self.device()));
  mask.index_put_({std::optional<Tensor>(idx)}, full({}, true, mask.options()));
  std::vector<int64_t> shape(self.dim(), 1);
  if (self.dim() == 0) return mask.reshape({});
  shape[d] = n;
  return mask.view(shape);
}

}  // namespace

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor mask = slice_mask(self, dim, index, "index_fill");
  check_scalar_fits(value, self.dtype(), "index_fill");
  return where(mask, full({}, value, self.options()), self);
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, ValueError,
              "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  Tensor mask = slice_mask(self, dim, index, "index_fill");
  return where(mask, value.to(self.device(), self.dtype()), self);
}

Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::index_fill(*this, dim, index, value);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Tensor& value) const {
  return ember::index_fill(*this, dim, index, value);
}

Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const {
  Tensor& self = const_cast<Tensor&>(*this);  // libtorch's in-place methods are const
  autograd::check_inplace_allowed(self, "index_fill_");
  return assign_inplace(self, ember::index_fill(self, dim, index, value), "index_fill_");
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Tensor& value) const {
  Tensor& self = const_cast<Tensor&>(*this);
  autograd::check_inplace_allowed(self, "index_fill_");
  return assign_inplace(self, ember::index_fill(self, dim, index, value), "index_fill_");
}

Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                 const Tensor& values, bool accumulate) {
  Tensor out = self.clone();
  out.index_put_(indices, values, accumulate);
  return out;
}

Tensor Tensor::index_put(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                         bool accumulate) const {
  return ember::index_put(*this, indices, values, accumulate);
}

}  // namespace ember
