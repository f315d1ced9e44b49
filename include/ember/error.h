#pragma once
// Exceptions thrown by Ember. Every bad input ends up here, never in abort().
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "ember/macros.h"

namespace ember {

class EMBER_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};
class EMBER_API OutOfMemoryError : public Error {
 public:
  using Error::Error;
};
class EMBER_API DeviceError : public Error {
 public:
  using Error::Error;
};
class EMBER_API TypeError : public Error {
 public:
  using Error::Error;
};
class EMBER_API IndexError : public Error {
 public:
  using Error::Error;
};
class EMBER_API ValueError : public Error {
 public:
  using Error::Error;
};
class EMBER_API NotImplementedError : public Error {
 public:
  using Error::Error;
};
// A Python argument of the wrong type, raised in Python as TypeError: thrown by the Python bindings
// and by load_inline's Python calling convention. Ember's TypeError itself is a dtype an op
// refuses, which ATen reports as c10::Error and PyTorch users see as RuntimeError (docs/python.md).
class EMBER_API ArgumentTypeError : public TypeError {
 public:
  using TypeError::TypeError;
};
// An integer division, remainder or fmod by zero (PyTorch's RuntimeError "ZeroDivisionError").
class EMBER_API ZeroDivisionError : public Error {
 public:
  using Error::Error;
};
// A matrix a linear-algebra function cannot work with (singular, not positive-definite): c10's
// LinAlgError, torch.linalg.LinAlgError in Python.
class EMBER_API LinAlgError : public Error {
 public:
  using Error::Error;
};

enum class ScalarType : int8_t;
class TypeMeta;

namespace detail {
// Ember's messages name dtypes as PyTorch's do ("expected scalar type Float"), also when they are
// given a t.dtype(), which prints libtorch's TypeMeta names ("float") elsewhere.
EMBER_API ScalarType message_part(const TypeMeta& t);
template <typename T>
const T& message_part(const T& v) {
  return v;
}
template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << message_part(args));
  return os.str();
}
}  // namespace detail
}  // namespace ember

// EMBER_CHECK(cond, ErrorType, message parts...): throws ErrorType with the parts concatenated.
#define EMBER_CHECK(cond, ErrorType, ...)                              \
  do {                                                                 \
    if (__builtin_expect(!(cond), 0)) {                                \
      throw ::ember::ErrorType(::ember::detail::str_cat(__VA_ARGS__)); \
    }                                                                  \
  } while (0)
