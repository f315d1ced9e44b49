// masked_fill / masked_fill_: where(mask, value, self) with the value cast to self's dtype (a
// masked fill never promotes). The mask must be bool; a tensor value must be 0-dim (its gradient
// is the sum of the incoming gradient where the mask is true).
#include "core/scalar_range.h"
#include "core/tensor_factory.h"
#include "ops/elementwise.h"

namespace ember {

namespace {

void check_mask(const Tensor& a, const Tensor& mask, const char* op) {
  EMBER_CHECK(mask.dtype() == kBool, TypeError, op,
              " only supports boolean masks, but got mask with dtype ", python_name(mask.dtype()));
  check_same_device(a, mask, op);
}

}  // namespace

Tensor masked_fill(const Tensor& a, const Tensor& mask, const Scalar& value) {
  check_mask(a, mask, "masked_fill");
  check_scalar_fits(value, a.dtype(), "masked_fill");
  return where(mask, full({}, value, a.options()), a);
}

Tensor masked_fill(const Tensor& a, const Tensor& mask, const Tensor& value) {
  check_mask(a, mask, "masked_fill");
  EMBER_CHECK(value.dim() == 0, ValueError,
              "masked_fill only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return where(mask, value.to(a.device(), a.dtype()), a);
}

Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return ember::masked_fill(*this, mask, value);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  return ember::masked_fill(*this, mask, value);
}

Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  Tensor& self = const_cast<Tensor&>(*this);  // libtorch's in-place methods are const
  autograd::check_inplace_allowed(self, "masked_fill_");
  check_mask(self, mask, "masked_fill_");
  return assign_inplace(
      self, ember::masked_fill(autograd::needs_grad({self}) ? clone() : self, mask, value),
      "masked_fill_");
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) const {
  Tensor& self = const_cast<Tensor&>(*this);
  autograd::check_inplace_allowed(self, "masked_fill_");
  check_mask(self, mask, "masked_fill_");
  return assign_inplace(
      self, ember::masked_fill(autograd::needs_grad({self}) ? clone() : self, mask, value),
      "masked_fill_");
}

}  // namespace ember
