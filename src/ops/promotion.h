#pragma once
#include "ember/tensor.h"

namespace ember {
// Ops that always compute in floating point (exp, true division...) turn integers into the
// default float dtype.
ScalarType float_result_type(ScalarType t);
// result_type over several tensors (addcmul, addcdiv): tensors with dims outrank 0-dim ones
// unless the 0-dim ones are of a higher category, as PyTorch's ResultTypeState.
ScalarType result_type(TensorList tensors);
}  // namespace ember
