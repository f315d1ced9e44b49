// PyTorch's result_type: tensors with dims outrank 0-dim tensors, which outrank Python-style
// scalars, except that a higher category (bool < integer < float) always wins.
#include "ops/promotion.h"

#include "ember/ops.h"

namespace ember {

namespace {
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (is_floating_point(higher)) return higher;
  if (higher == kBool || is_floating_point(lower)) return promote_types(higher, lower);
  return higher;
}
}  // namespace

ScalarType result_type(const Tensor& a, const Tensor& b) {
  bool ad = a.dim() > 0, bd = b.dim() > 0;
  if (ad == bd) return promote_types(a.dtype(), b.dtype());
  return ad ? combine_categories(a.dtype(), b.dtype()) : combine_categories(b.dtype(), a.dtype());
}

ScalarType result_type(const Tensor& a, const Scalar& b) {
  return combine_categories(a.dtype(), b.type());
}

ScalarType float_result_type(ScalarType t) {
  return is_floating_point(t) ? t : get_default_dtype();
}

}  // namespace ember
