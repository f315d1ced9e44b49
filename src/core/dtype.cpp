// dtype names and PyTorch's promotion lattice.
#include "ember/dtype.h"

#include <atomic>
#include <type_traits>

#include "ember/error.h"

namespace ember {

const char* to_string(ScalarType t) {
  static const char* names[] = {"Byte", "Char",  "Short",  "Int",  "Long",
                                "Half", "Float", "Double", "Bool", "BFloat16"};
  int i = static_cast<int>(t);
  return (i >= 0 && i < static_cast<int>(ScalarType::NumTypes)) ? names[i] : "Undefined";
}

const char* python_name(ScalarType t) {
  static const char* names[] = {"torch.uint8", "torch.int8",    "torch.int16",   "torch.int32",
                                "torch.int64", "torch.float16", "torch.float32", "torch.float64",
                                "torch.bool",  "torch.bfloat16"};
  int i = static_cast<int>(t);
  return (i >= 0 && i < static_cast<int>(ScalarType::NumTypes)) ? names[i] : "torch.undefined";
}

const char* cpp_type_name(ScalarType t) {
  // The names GCC and Clang demangle libtorch's types to, as caffe2::TypeMeta prints them.
  static_assert(std::is_same_v<int64_t, long> || std::is_same_v<int64_t, long long>);
  static const char* names[] = {"unsigned char",
                                "signed char",
                                "short int",
                                "int",
                                std::is_same_v<int64_t, long> ? "long int" : "long long int",
                                "c10::Half",
                                "float",
                                "double",
                                "bool",
                                "c10::BFloat16"};
  int i = static_cast<int>(t);
  return (i >= 0 && i < static_cast<int>(ScalarType::NumTypes)) ? names[i] : "Undefined";
}

std::ostream& operator<<(std::ostream& os, ScalarType t) {
  return os << to_string(t);
}
std::ostream& operator<<(std::ostream& os, TypeMeta t) {
  return os << t.name();
}

namespace detail {
ScalarType message_part(const TypeMeta& t) {
  return t.toScalarType();
}
}  // namespace detail

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  // Table in enum order: u8 i8 i16 i32 i64 f16 f32 f64 b1 bf16 (PyTorch's promoteTypes).
  constexpr ScalarType u1 = kByte, i1 = kChar, i2 = kShort, i4 = kInt, i8 = kLong, f2 = kHalf,
                       f4 = kFloat, f8 = kDouble, b1 = kBool, bf = kBFloat16;
  static constexpr ScalarType table[10][10] = {
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, u1, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, i1, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, i2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, i4, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, b1, bf},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, bf, bf},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

static std::atomic<ScalarType> g_default_dtype{kFloat};
ScalarType get_default_dtype() {
  return g_default_dtype.load(std::memory_order_relaxed);
}
void set_default_dtype(ScalarType t) {
  EMBER_CHECK(is_floating_point(t), TypeError,
              "set_default_dtype only supports floating point dtypes, got ", to_string(t));
  g_default_dtype.store(t);
}

}  // namespace ember
