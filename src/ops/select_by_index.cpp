// Reading elements by a mask or an index: masked_select (a boolean subscript of the broadcast
// operands), take (index_select of the flattened tensor), take_along_dim (gather after
// broadcasting) and count_nonzero (a sum of self != 0). Gradients come from the ops composed.
#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kByte, TypeError,
              "masked_select: expected BoolTensor for mask (got ", python_name(mask.dtype()), ")");
  check_same_device(self, mask, "masked_select");
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), mask.sizes());
  if (shape.empty()) return self.reshape({1}).index({mask.reshape({1})});
  return self.expand(shape).index({mask.expand(shape)});
}

Tensor take(const Tensor& self, const Tensor& index) {
  EMBER_CHECK(index.dtype() == kLong, TypeError,
              "take(): Expected a long tensor for index, but got ", python_name(index.dtype()));
  check_same_device(self, index, "take");
  const int64_t n = self.numel();
  EMBER_CHECK(!(n == 0 && index.numel() != 0), IndexError,
              "take(): tried to take from an empty tensor");
  Tensor flat = index.reshape({index.numel()});
  if (flat.numel() > 0 && !flat.is_meta()) {  // a meta index has no values to check
    Tensor bad = flat.lt(-n).logical_or(flat.ge(n));
    if (bad.any().item<bool>()) {
      const int64_t i = flat.index({bad})[0].item<int64_t>();
      EMBER_CHECK(false, IndexError, "out of range: tried to access index ", i, " on a tensor of ",
                  n, " elements.");
    }
  }
  Tensor wrapped = where(flat.lt(0), flat.add(n), flat);
  return self.reshape({n}).index_select(0, wrapped).view(index.sizes());
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  check_same_device(self, indices, "torch.take_along_dim()");
  if (!dim) return self.reshape({self.numel()}).gather(0, indices.reshape({indices.numel()}));
  EMBER_CHECK(indices.dtype() == kLong, TypeError,
              "torch.take_along_dim(): dtype of indices should be Long but got ",
              python_name(indices.dtype()));
  EMBER_CHECK(self.dim() == indices.dim(), ValueError,
              "torch.take_along_dim(): input and indices should have the same number of "
              "dimensions, but got ",
              self.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  const int64_t d = wrap_dim(*dim, self.dim(), "take_along_dim");
  // Every dim but d broadcasts; along d, self keeps its size and indices theirs.
  std::vector<int64_t> self_sizes = self.sizes().vec(), index_sizes = indices.sizes().vec();
  self_sizes[d] = indices.size(d);
  index_sizes[d] = self.size(d);
  const std::vector<int64_t> index_shape = broadcast_shapes(self_sizes, indices.sizes());
  const std::vector<int64_t> self_shape = broadcast_shapes(index_sizes, self.sizes());
  return self.expand(self_shape).gather(d, indices.expand(index_shape));
}

Tensor count_nonzero(const Tensor& self, IntArrayRef dim) {
  return self.ne(0).sum(dim, false, kLong);
}

Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  if (dim) return count_nonzero(self, IntArrayRef{*dim});
  return self.ne(0).sum(kLong);
}

Tensor Tensor::masked_select(const Tensor& mask) const {
  return ember::masked_select(*this, mask);
}
Tensor Tensor::take(const Tensor& index) const {
  return ember::take(*this, index);
}
Tensor Tensor::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  return ember::take_along_dim(*this, indices, dim);
}
Tensor Tensor::count_nonzero(IntArrayRef dim) const {
  return ember::count_nonzero(*this, dim);
}
Tensor Tensor::count_nonzero(std::optional<int64_t> dim) const {
  return ember::count_nonzero(*this, dim);
}

}  // namespace ember
