// Whether a Scalar fits a dtype (see scalar_range.h).
#include "core/scalar_range.h"

#include <cmath>
#include <limits>

#include "ember/error.h"

namespace ember {
namespace {

// The C++ type names PyTorch's message uses.
const char* c_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
      return "uint8_t";
    case ScalarType::Char:
      return "int8_t";
    case ScalarType::Short:
      return "int16_t";
    case ScalarType::Int:
      return "int";
    case ScalarType::Long:
      return "int64_t";
    case ScalarType::Half:
      return "at::Half";
    case ScalarType::Float:
      return "float";
    case ScalarType::BFloat16:
      return "at::BFloat16";
    case ScalarType::Double:
      return "double";
    default:
      return "bool";
  }
}

// The integer dtype's range; -2^63 and 2^63 - 1 for int64.
void int_range(ScalarType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ScalarType::Byte:
      *lo = 0, *hi = 255;
      return;
    case ScalarType::Char:
      *lo = -128, *hi = 127;
      return;
    case ScalarType::Short:
      *lo = -32768, *hi = 32767;
      return;
    case ScalarType::Int:
      *lo = std::numeric_limits<int32_t>::min(), *hi = std::numeric_limits<int32_t>::max();
      return;
    default:
      *lo = std::numeric_limits<int64_t>::min(), *hi = std::numeric_limits<int64_t>::max();
  }
}

// The largest finite value of a floating dtype.
double float_max(ScalarType t) {
  switch (t) {
    case ScalarType::Half:
      return 65504.0;
    case ScalarType::BFloat16:
      return 3.38953138925153547590470800371487866880e38;  // 0x7f7f
    case ScalarType::Float:
      return std::numeric_limits<float>::max();
    default:
      return std::numeric_limits<double>::max();
  }
}

bool fits(const Scalar& v, ScalarType t) {
  if (v.isBoolean() || t == kBool || t == kDouble) return true;
  if (v.isIntegral(false)) {
    const int64_t i = v.toLong();
    if (is_floating_point(t)) {  // every int64 is below float32's and bfloat16's largest
      return t != kHalf || (i >= -65504 && i <= 65504);
    }
    int64_t lo, hi;
    int_range(t, &lo, &hi);
    if (t == kByte) return i >= -255 && i <= 255;  // negative integers wrap, as in PyTorch
    return i >= lo && i <= hi;
  }
  const double d = v.toDouble();
  if (is_floating_point(t)) return !std::isfinite(d) || std::fabs(d) <= float_max(t);
  if (!std::isfinite(d)) return false;
  if (t == kLong) return d >= -9223372036854775808.0 && d < 9223372036854775808.0;
  int64_t lo, hi;
  int_range(t, &lo, &hi);
  return d >= static_cast<double>(lo) && d <= static_cast<double>(hi);
}

}  // namespace

void check_scalar_fits(const Scalar& value, ScalarType dtype, const char* op) {
  if (__builtin_expect(fits(value, dtype), 1)) return;
  throw ValueError(detail::str_cat(op, ": value cannot be converted to type ", c_type_name(dtype),
                                   " without overflow: ", value, " (for a tensor of dtype ",
                                   to_string(dtype), ")"));
}

}  // namespace ember
