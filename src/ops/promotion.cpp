// PyTorch's result_type: tensors with dims outrank 0-dim tensors, which outrank Python-style
// scalars, except that a higher category (bool < integer < float) always wins.
#include "ops/promotion.h"

#include <optional>

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

ScalarType result_type(TensorList tensors) {
  std::optional<ScalarType> with_dims, zero_dim;
  for (const Tensor& t : tensors) {
    std::optional<ScalarType>& slot = t.dim() > 0 ? with_dims : zero_dim;
    slot = slot ? promote_types(*slot, t.dtype()) : t.dtype();
  }
  if (!with_dims) return *zero_dim;
  if (!zero_dim) return *with_dims;
  return combine_categories(*with_dims, *zero_dim);
}

ScalarType float_result_type(ScalarType t) {
  return is_floating_point(t) ? t : get_default_dtype();
}

}  // namespace ember
