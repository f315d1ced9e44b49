#pragma once
// How Python calls the functions of a load_inline extension (ember.utils.cpp_extension, Python).
// For each function `f` it lists, the Python load_inline appends to the source
//
//   void ember_py_entry_f(const std::vector<Value>& args, Result& result) { call(&f, args, result);
//   } const char* ember_py_signature_f() { ... signature<decltype(&f)>("f") ... }
//
// and loads both with ember::cpp_extension::load_inline. The bindings (python/src/
// cpp_extension.cpp) turn Python's arguments into Values (tensor, int, float, bool, str, lists,
// None), `call` converts each to the C++ parameter's type, calls f, and turns its result back.
// Both sides link the same libember, so an ember::Tensor crosses as it is.
//
// Parameter types: ember::Tensor (by value or reference), integers, floating types, bool,
// std::string, ember::Scalar, std::vector of Tensor / integers / floating types, std::optional
// of those (None: nullopt). Results: those, void (None), and std::tuple / std::pair (a tuple).
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "ember/error.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::cpp_extension::python {

using Value = std::variant<std::monostate, Tensor, int64_t, double, bool, std::string,
                           std::vector<Tensor>, std::vector<int64_t>, std::vector<double>>;
struct Result {
  std::vector<Value> values;  // one, or the elements of a tuple
  bool tuple = false;
};
using Entry = void(const std::vector<Value>& args, Result& result);

namespace detail {

template <typename T>
struct is_vector : std::false_type {};
template <typename T>
struct is_vector<std::vector<T>> : std::true_type {};
template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};
template <typename T>
struct is_tuple : std::false_type {};
template <typename... T>
struct is_tuple<std::tuple<T...>> : std::true_type {};
template <typename A, typename B>
struct is_tuple<std::pair<A, B>> : std::true_type {};

// The Python name of a parameter or result type, for signatures and messages.
template <typename T>
std::string type_name() {
  using U = std::decay_t<T>;
  if constexpr (std::is_same_v<U, Tensor>)
    return "Tensor";
  else if constexpr (std::is_same_v<U, bool>)
    return "bool";
  else if constexpr (std::is_integral_v<U>)
    return "int";
  else if constexpr (std::is_floating_point_v<U>)
    return "float";
  else if constexpr (std::is_same_v<U, std::string>)
    return "str";
  else if constexpr (std::is_same_v<U, Scalar>)
    return "number";
  else if constexpr (std::is_void_v<U>)
    return "None";
  else if constexpr (is_vector<U>::value)
    return "List[" + type_name<typename U::value_type>() + "]";
  else if constexpr (is_optional<U>::value)
    return "Optional[" + type_name<typename U::value_type>() + "]";
  else if constexpr (is_tuple<U>::value) {
    std::string out = "Tuple[";
    std::apply([&](auto... e) { ((out += type_name<decltype(e)>() + ", "), ...); }, U{});
    return out.substr(0, out.size() - 2) + "]";
  } else {
    static_assert(sizeof(U) == 0,
                  "load_inline (Python): a parameter or result type Python cannot pass");
  }
}

inline const char* value_name(const Value& v) {
  static const char* const names[] = {"None", "Tensor",       "int",       "float",      "bool",
                                      "str",  "List[Tensor]", "List[int]", "List[float]"};
  return names[v.index()];
}

[[noreturn]] inline void mismatch(const char* fn, size_t i, const std::string& want,
                                  const Value& got) {
  throw ArgumentTypeError(std::string(fn) + "(): argument " + std::to_string(i + 1) + " must be " +
                          want + ", not " + value_name(got));
}

template <typename T>
T from_value(const Value& v, const char* fn, size_t i) {
  using U = std::decay_t<T>;
  if constexpr (std::is_same_v<U, Tensor>) {
    if (auto* t = std::get_if<Tensor>(&v)) return *t;
  } else if constexpr (std::is_same_v<U, bool>) {
    if (auto* b = std::get_if<bool>(&v)) return *b;
  } else if constexpr (std::is_integral_v<U>) {
    if (auto* n = std::get_if<int64_t>(&v)) return static_cast<U>(*n);
    if (auto* b = std::get_if<bool>(&v)) return static_cast<U>(*b);
  } else if constexpr (std::is_floating_point_v<U>) {
    if (auto* d = std::get_if<double>(&v)) return static_cast<U>(*d);
    if (auto* n = std::get_if<int64_t>(&v)) return static_cast<U>(*n);
    if (auto* b = std::get_if<bool>(&v)) return static_cast<U>(*b);
  } else if constexpr (std::is_same_v<U, std::string>) {
    if (auto* s = std::get_if<std::string>(&v)) return *s;
  } else if constexpr (std::is_same_v<U, Scalar>) {
    if (auto* d = std::get_if<double>(&v)) return Scalar(*d);
    if (auto* n = std::get_if<int64_t>(&v)) return Scalar(*n);
    if (auto* b = std::get_if<bool>(&v)) return Scalar(*b);
  } else if constexpr (is_optional<U>::value) {
    if (std::holds_alternative<std::monostate>(v)) return std::nullopt;
    return from_value<typename U::value_type>(v, fn, i);
  } else if constexpr (is_vector<U>::value) {
    using E = typename U::value_type;
    if constexpr (std::is_same_v<E, Tensor>) {
      if (auto* l = std::get_if<std::vector<Tensor>>(&v)) return *l;
      if (auto* l = std::get_if<std::vector<int64_t>>(&v); l && l->empty()) return {};
    } else if constexpr (std::is_integral_v<E> && !std::is_same_v<E, bool>) {
      if (auto* l = std::get_if<std::vector<int64_t>>(&v)) return U(l->begin(), l->end());
    } else if constexpr (std::is_floating_point_v<E>) {
      if (auto* l = std::get_if<std::vector<double>>(&v)) return U(l->begin(), l->end());
      if (auto* l = std::get_if<std::vector<int64_t>>(&v)) return U(l->begin(), l->end());
    }
  }
  mismatch(fn, i, type_name<U>(), v);
}

template <typename R>
Value to_value(R&& r) {
  using U = std::decay_t<R>;
  if constexpr (std::is_same_v<U, Tensor> || std::is_same_v<U, bool> ||
                std::is_same_v<U, std::string> || std::is_same_v<U, std::vector<Tensor>>)
    return Value(std::forward<R>(r));
  else if constexpr (std::is_integral_v<U>)
    return Value(static_cast<int64_t>(r));
  else if constexpr (std::is_floating_point_v<U>)
    return Value(static_cast<double>(r));
  else if constexpr (std::is_same_v<U, Scalar>) {
    if (r.isBoolean()) return Value(r.toBool());
    if (r.isFloatingPoint()) return Value(r.toDouble());
    return Value(r.toLong());
  } else if constexpr (is_optional<U>::value) {
    return r ? to_value(*r) : Value();
  } else if constexpr (is_vector<U>::value) {
    using E = typename U::value_type;
    if constexpr (std::is_integral_v<E> && !std::is_same_v<E, bool>)
      return Value(std::vector<int64_t>(r.begin(), r.end()));
    else if constexpr (std::is_floating_point_v<E>)
      return Value(std::vector<double>(r.begin(), r.end()));
    else
      static_assert(sizeof(E) == 0, "load_inline (Python): a list result Python cannot take");
  } else {
    static_assert(sizeof(U) == 0, "load_inline (Python): a result type Python cannot take");
  }
}

template <typename R, typename... P, size_t... I>
void call_with(R (*f)(P...), const char* fn, const std::vector<Value>& args, Result& out,
               std::index_sequence<I...>) {
  // Lvalues, so that parameters taken by (non-const) reference bind to them.
  std::tuple<std::decay_t<P>...> values{from_value<std::decay_t<P>>(args[I], fn, I)...};
  if constexpr (std::is_void_v<R>) {
    f(std::get<I>(values)...);
    out.values.emplace_back();
  } else if constexpr (is_tuple<std::decay_t<R>>::value) {
    auto r = f(std::get<I>(values)...);
    out.tuple = true;
    std::apply([&](auto&... e) { (out.values.push_back(to_value(e)), ...); }, r);
  } else {
    out.values.push_back(to_value(f(std::get<I>(values)...)));
  }
}

}  // namespace detail

template <typename R, typename... P>
std::string signature(R (*)(P...), const char* fn) {
  std::string out = std::string(fn) + "(";
  ((out += detail::type_name<P>() + ", "), ...);
  if constexpr (sizeof...(P) > 0) out.resize(out.size() - 2);
  return out + ") -> " + detail::type_name<R>();
}

template <typename R, typename... P>
void call(R (*f)(P...), const char* fn, const std::vector<Value>& args, Result& out) {
  if (args.size() != sizeof...(P)) {
    throw ArgumentTypeError(std::string(fn) + "(): takes " + std::to_string(sizeof...(P)) +
                            " argument" + (sizeof...(P) == 1 ? "" : "s") + " but " +
                            std::to_string(args.size()) + (args.size() == 1 ? " was" : " were") +
                            " given (" + signature(f, fn) + ")");
  }
  detail::call_with(f, fn, args, out, std::index_sequence_for<P...>{});
}

}  // namespace ember::cpp_extension::python
