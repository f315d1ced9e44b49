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

// libtorch's ScalarType name ("Float"), as printed by operator<< and by t.scalar_type().
EMBER_API const char* to_string(ScalarType t);
// Python's name ("torch.float32"), as Python's repr of a tensor writes it.
EMBER_API const char* python_name(ScalarType t);
// The C++ type a ScalarType stores, named as libtorch's caffe2::TypeMeta names it: "float",
// "long int", "c10::Half" (libtorch's own types keep their c10:: names).
EMBER_API const char* cpp_type_name(ScalarType t);
EMBER_API std::ostream& operator<<(std::ostream& os, ScalarType t);

// What Tensor::dtype() and TensorOptions::dtype() return: libtorch's caffe2::TypeMeta. It is a
// ScalarType that prints as the C++ type it stores (`std::cout << t.dtype()` writes "float", as
// libtorch does, while `t.scalar_type()` writes "Float"). It converts implicitly to ScalarType and
// compares with it, so `t.dtype() == kFloat`, `switch (t.dtype())` and passing it where a
// ScalarType is taken all work.
class TypeMeta {
 public:
  // libtorch's default TypeMeta is its "uninitialized" type; so is Ember's.
  constexpr TypeMeta() noexcept = default;
  static constexpr TypeMeta fromScalarType(ScalarType t) noexcept { return TypeMeta(t); }
  template <typename T>
  static constexpr TypeMeta Make() noexcept;

  constexpr ScalarType toScalarType() const noexcept { return type_; }
  constexpr operator ScalarType() const noexcept { return type_; }
  TypeMeta& operator=(ScalarType t) noexcept {
    type_ = t;
    return *this;
  }
  constexpr bool isScalarType() const noexcept { return type_ != ScalarType::NumTypes; }
  constexpr bool isScalarType(ScalarType t) const noexcept { return type_ == t; }
  template <typename T>
  constexpr bool Match() const noexcept;
  // "float", "long int", ...; "nullptr (uninitialized)" for a default-constructed TypeMeta.
  const char* name() const noexcept {
    return isScalarType() ? cpp_type_name(type_) : "nullptr (uninitialized)";
  }
  constexpr size_t itemsize() const noexcept { return isScalarType() ? element_size(type_) : 0; }

  friend constexpr bool operator==(TypeMeta a, TypeMeta b) noexcept { return a.type_ == b.type_; }
  friend constexpr bool operator!=(TypeMeta a, TypeMeta b) noexcept { return a.type_ != b.type_; }
  friend constexpr bool operator==(TypeMeta a, ScalarType b) noexcept { return a.type_ == b; }
  friend constexpr bool operator!=(TypeMeta a, ScalarType b) noexcept { return a.type_ != b; }
  friend constexpr bool operator==(ScalarType a, TypeMeta b) noexcept { return a == b.type_; }
  friend constexpr bool operator!=(ScalarType a, TypeMeta b) noexcept { return a != b.type_; }

 private:
  constexpr explicit TypeMeta(ScalarType t) noexcept : type_(t) {}
  ScalarType type_ = ScalarType::NumTypes;
};
EMBER_API std::ostream& operator<<(std::ostream& os, TypeMeta t);

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

template <typename T>
constexpr TypeMeta TypeMeta::Make() noexcept {
  return TypeMeta(CppTypeToScalarType<T>::value);
}
template <typename T>
constexpr bool TypeMeta::Match() const noexcept {
  return type_ == CppTypeToScalarType<T>::value;
}

}  // namespace ember
