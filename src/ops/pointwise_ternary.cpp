// lerp, addcmul and addcdiv, composed from differentiable binary ops (so their gradients, and
// gradients of gradients, come from those ops) in the order PyTorch's kernels evaluate them.
#include <cmath>

#include "ops/elementwise.h"
#include "ops/promotion.h"

namespace ember {

namespace {

void check_lerp_dtypes(const Tensor& start, const Tensor& end, const Tensor* weight) {
  const std::string got =
      detail::str_cat(" (got start ", to_string(start.dtype()), ", end ", to_string(end.dtype()),
                      ", weight ", weight ? to_string(weight->dtype()) : "a scalar", ")");
  EMBER_CHECK(is_floating_point(start.dtype()), TypeError, "\"lerp\" not implemented for '",
              to_string(start.dtype()), "': lerp takes floating point tensors", got);
  EMBER_CHECK(end.dtype() == start.dtype(), TypeError, "lerp: expected dtype ",
              python_name(start.dtype()), " for `end` but got dtype ", python_name(end.dtype()),
              got);
  EMBER_CHECK(!weight || weight->dtype() == start.dtype(), TypeError, "lerp: expected dtype ",
              python_name(start.dtype()), " for `weight` but got dtype ",
              python_name(weight->dtype()), got);
}

// a cast to `dt` that keeps the autograd history (a no-op when it already has that dtype).
Tensor as_dtype(const Tensor& a, ScalarType dt) {
  return a.dtype() == dt ? a : a.to(dt);
}

// The scalar as the computation's dtype sees it: integer results truncate it, as PyTorch casts
// `value` to the common dtype.
Scalar value_for(const Scalar& value, ScalarType dt) {
  if (is_integral(dt)) return Scalar(value.toLong());
  return value;
}

}  // namespace

// Small weights interpolate from start, large ones from end, which keeps lerp(a, b, 1) == b
// exactly (PyTorch's formula).
Tensor lerp(const Tensor& start, const Tensor& end, const Scalar& weight) {
  check_lerp_dtypes(start, end, nullptr);
  // The weight in the tensors' precision, so that 1 - w rounds as it does in PyTorch's kernel.
  const double w = wrap_scalar(weight, start.dtype()).item<double>();
  Tensor diff = end - start;
  if (std::fabs(w) < 0.5) return start + w * diff;
  return end - diff * (1 - w);
}
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  check_lerp_dtypes(start, end, &weight);
  Tensor diff = end - start;
  Tensor from_start = start + weight * diff;
  Tensor from_end = end - diff * (1 - weight);
  Tensor small_weight;
  {
    NoGradGuard no_grad;
    small_weight = abs(weight) < 0.5;
  }
  return where(small_weight, from_start, from_end);
}

Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
               const Scalar& value) {
  ScalarType dt = result_type({self, tensor1, tensor2});
  EMBER_CHECK(dt != kBool, TypeError, "\"addcmul\" not implemented for 'Bool'");
  return as_dtype(self, dt) + as_dtype(tensor1, dt) * value_for(value, dt) * as_dtype(tensor2, dt);
}

Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
               const Scalar& value) {
  EMBER_CHECK(!(is_integral(tensor1.dtype(), true) && is_integral(tensor2.dtype(), true)),
              TypeError,
              "Integer division with addcdiv is no longer supported, and in a future release "
              "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
              "behavior can be implemented as (input + value * torch.trunc(tensor1 / "
              "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
              "tensor2) for float inputs. The future addcdiv behavior is just the latter "
              "implementation: (input + value * tensor1 / tensor2), for all dtypes. (got ",
              to_string(tensor1.dtype()), " and ", to_string(tensor2.dtype()), ")");
  ScalarType dt = result_type({self, tensor1, tensor2});
  return as_dtype(self, dt) + as_dtype(tensor1, dt) * value_for(value, dt) / as_dtype(tensor2, dt);
}

Tensor Tensor::lerp(const Tensor& end, const Scalar& weight) const {
  return ember::lerp(*this, end, weight);
}
Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  return ember::lerp(*this, end, weight);
}
Tensor Tensor::addcmul(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) const {
  return ember::addcmul(*this, tensor1, tensor2, value);
}
Tensor Tensor::addcdiv(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) const {
  return ember::addcdiv(*this, tensor1, tensor2, value);
}

}  // namespace ember
