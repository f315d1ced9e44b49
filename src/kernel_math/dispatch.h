#pragma once
// Dtype dispatch: turns a runtime ScalarType into a compile-time C++ type. `scalar_t` is the
// storage type; `acc_t<scalar_t>` the type the math is done in (float for half and bfloat16).
#include <type_traits>

#include "ember/dtype.h"
#include "ember/error.h"

namespace ember {

template <typename T>
struct AccType {
  using type = T;
};
template <>
struct AccType<Half> {
  using type = float;
};
template <>
struct AccType<BFloat16> {
  using type = float;
};
template <typename T>
using acc_t = typename AccType<T>::type;

#define EMBER_DISPATCH_CASE(st, cpp, ...) \
  case ::ember::ScalarType::st: {         \
    using scalar_t = cpp;                 \
    __VA_ARGS__();                        \
    break;                                \
  }

// All ten dtypes.
#define EMBER_DISPATCH_ALL(dtype, name, ...)                                                    \
  [&] {                                                                                         \
    switch (dtype) {                                                                            \
      EMBER_DISPATCH_CASE(Byte, uint8_t, __VA_ARGS__)                                           \
      EMBER_DISPATCH_CASE(Char, int8_t, __VA_ARGS__)                                            \
      EMBER_DISPATCH_CASE(Short, int16_t, __VA_ARGS__)                                          \
      EMBER_DISPATCH_CASE(Int, int32_t, __VA_ARGS__)                                            \
      EMBER_DISPATCH_CASE(Long, int64_t, __VA_ARGS__)                                           \
      EMBER_DISPATCH_CASE(Half, ::ember::Half, __VA_ARGS__)                                     \
      EMBER_DISPATCH_CASE(Float, float, __VA_ARGS__)                                            \
      EMBER_DISPATCH_CASE(Double, double, __VA_ARGS__)                                          \
      EMBER_DISPATCH_CASE(Bool, bool, __VA_ARGS__)                                              \
      EMBER_DISPATCH_CASE(BFloat16, ::ember::BFloat16, __VA_ARGS__)                             \
      default:                                                                                  \
        throw ::ember::TypeError(                                                               \
            ::ember::detail::str_cat(name, ": unsupported dtype ", ::ember::to_string(dtype))); \
    }                                                                                           \
  }()

// Floating dtypes only; others throw a TypeError naming the op and the dtype.
#define EMBER_DISPATCH_FLOATING(dtype, name, ...)                                                 \
  [&] {                                                                                           \
    switch (dtype) {                                                                              \
      EMBER_DISPATCH_CASE(Half, ::ember::Half, __VA_ARGS__)                                       \
      EMBER_DISPATCH_CASE(Float, float, __VA_ARGS__)                                              \
      EMBER_DISPATCH_CASE(Double, double, __VA_ARGS__)                                            \
      EMBER_DISPATCH_CASE(BFloat16, ::ember::BFloat16, __VA_ARGS__)                               \
      default:                                                                                    \
        throw ::ember::TypeError(::ember::detail::str_cat(name, " does not support dtype ",       \
                                                          ::ember::to_string(dtype),              \
                                                          " (expected a floating point dtype)")); \
    }                                                                                             \
  }()

}  // namespace ember
