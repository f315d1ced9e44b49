#pragma once
#include "ember/tensor.h"

namespace ember {
// Ops that always compute in floating point (exp, true division...) turn integers into the
// default float dtype.
ScalarType float_result_type(ScalarType t);
}  // namespace ember
