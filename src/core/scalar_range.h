#pragma once
// Whether a Scalar fits a dtype, as PyTorch's checked_convert decides when it fills a tensor
// (full, fill_, masked_fill, index_put_ of a scalar): full({2}, NAN, kLong) is an error there, not
// INT64_MIN. Arithmetic with scalars (add_(2^40) on int32) is not checked, in PyTorch neither.
#include "ember/scalar.h"

namespace ember {

// Throws ValueError "<op>: value cannot be converted to type <C type> without overflow: <value>"
// (PyTorch's words) when `value` does not fit `dtype`:
//  - into an integer dtype: NaN, infinities and doubles beyond its range (uint8 from a double:
//    [0, 255]); integers beyond its range, except that uint8 takes [-255, 255] (wrapping), as
//    PyTorch; int64 from a double takes [-2^63, 2^63) (PyTorch also lets 2^63 through and wraps);
//  - into float16/bfloat16/float32: finite values beyond the dtype's largest (NaN and infinities
//    are values there);
//  - bool and float64 take anything, as does any dtype a bool.
EMBER_API void check_scalar_fits(const Scalar& value, ScalarType dtype, const char* op);

}  // namespace ember
