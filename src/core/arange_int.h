// Whether an arange runs in int64 arithmetic: integer dtypes with whole start and step. Then the
// elements are exact beyond 2^53 (arange(2**60, 2**60 + 5)), which the double path is not.
#pragma once

#include <cmath>
#include <cstdint>

#include "ember/scalar.h"

namespace ember {

// The value of s as an int64 when it is a whole number in int64's range.
inline bool arange_int_value(const Scalar& s, int64_t* out) {
  if (!s.isFloatingPoint()) {
    *out = s.toLong();
    return true;
  }
  const double d = s.toDouble();
  if (d != std::floor(d) || !(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
    return false;
  }
  *out = static_cast<int64_t>(d);
  return true;
}

}  // namespace ember
