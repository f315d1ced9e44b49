#pragma once
// Scalar types, their names, sizes and PyTorch's type-promotion rules.
#include <cstdint>
#include <ostream>
#include <string>

#include "ember/half.h"
#include "ember/macros.h"

namespace ember {

enum class ScalarType : int8_t {
  Byte = 0,  // uint8
  Char,      // int8
  Short,     // int16
  Int,       // int32
  Long,      // int64
  Half,      // float16
  Float,     // float32
  Double,    // float64
  Bool,
  BFloat16,
  NumTypes
};
using Dtype = ScalarType;

constexpr ScalarType kByte = ScalarType::Byte, kUInt8 = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char, kInt8 = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short, kInt16 = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int, kInt32 = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long, kInt64 = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half, kFloat16 = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float, kFloat32 = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double, kFloat64 = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;

constexpr size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Bool:
      return 1;
    case ScalarType::Short:
    case ScalarType::Half:
    case ScalarType::BFloat16:
      return 2;
    case ScalarType::Int:
    case ScalarType::Float:
      return 4;
    default:
      return 8;
  }
}
constexpr bool is_floating_point(ScalarType t) {
  return t == kHalf || t == kFloat || t == kDouble || t == kBFloat16;
}
constexpr bool is_integral(ScalarType t, bool include_bool = false) {
  return t == kByte || t == kChar || t == kShort || t == kInt || t == kLong ||
         (include_bool && t == kBool);
}

// libtorch's C++ name ("Float"), as printed by operator<<.
EMBER_API const char* to_string(ScalarType t);
// Python's name ("torch.float32"), as used when printing tensors.
EMBER_API const char* python_name(ScalarType t);
EMBER_API std::ostream& operator<<(std::ostream& os, ScalarType t);

// Promotion of two dtypes in the same category ladder (bool < integers < floats).
EMBER_API ScalarType promote_types(ScalarType a, ScalarType b);
// The default floating dtype (float32 unless set_default_dtype was called).
EMBER_API ScalarType get_default_dtype();
EMBER_API void set_default_dtype(ScalarType t);

template <typename T>
struct CppTypeToScalarType;
#define EMBER_CPP_TO_SCALAR(cpp, st)                    \
  template <>                                           \
  struct CppTypeToScalarType<cpp> {                     \
    static constexpr ScalarType value = ScalarType::st; \
  };
EMBER_CPP_TO_SCALAR(uint8_t, Byte)
EMBER_CPP_TO_SCALAR(int8_t, Char)
EMBER_CPP_TO_SCALAR(int16_t, Short)
EMBER_CPP_TO_SCALAR(int32_t, Int)
EMBER_CPP_TO_SCALAR(int64_t, Long)
EMBER_CPP_TO_SCALAR(Half, Half)
EMBER_CPP_TO_SCALAR(float, Float)
EMBER_CPP_TO_SCALAR(double, Double)
EMBER_CPP_TO_SCALAR(bool, Bool)
EMBER_CPP_TO_SCALAR(BFloat16, BFloat16)
#undef EMBER_CPP_TO_SCALAR

}  // namespace ember
