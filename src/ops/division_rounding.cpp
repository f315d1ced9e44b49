// The rounding divisions: remainder (Python's sign), fmod (C's sign), floor_divide and
// div(a, b, rounding_mode). They keep integer dtypes (no promotion to float, unlike true
// division). An integer divisor of zero is PyTorch's ZeroDivisionError: host divisors (scalars, CPU
// tensors) are checked here before anything is computed, CUDA tensors by the kernel (a device-side
// assert, as index bounds are), which costs no host synchronisation.
#include "ops/elementwise.h"
#include "ops/promotion.h"

namespace ember {

using autograd::SavedTensor;
using autograd::sum_to;
using autograd::variable_list;

namespace {

void check_not_bool(const char* op, ScalarType result, ScalarType a, ScalarType b) {
  EMBER_CHECK(result != kBool, TypeError, "\"", op, "\" not implemented for 'Bool' (got ",
              to_string(a), " and ", to_string(b), " operands)");
}

void check_divisor(const char* op, ScalarType result, const Tensor& a, const Tensor& b) {
  if (!is_integral(result) || !b.is_cpu()) return;
  bool has_zero;
  {
    NoGradGuard no_grad;
    has_zero = b.eq(0).any().item<bool>();
  }
  EMBER_CHECK(!has_zero, ZeroDivisionError, "ZeroDivisionError: ", op, " of a ",
              to_string(a.dtype()), " tensor by a ", to_string(b.dtype()),
              " tensor that holds zero (integer division by zero)");
}

void check_divisor(const char* op, ScalarType result, const Tensor& a, const Scalar& b) {
  EMBER_CHECK(!(is_integral(result) && b.toDouble() == 0.0), ZeroDivisionError,
              "ZeroDivisionError: ", op, " of a ", to_string(a.dtype()),
              " tensor by the scalar 0 (integer division by zero)");
}

// PyTorch's CPU kernel truncates a float16/bfloat16 quotient after rounding it to 16 bits
// (trunc(-12.98) is -12, but -12.98 is -13 in bfloat16): the same two steps here.
Tensor kernel_call(BinaryOp op, const Tensor& a, const Tensor& b, ScalarType dt) {
  if (op == BinaryOp::DivTrunc && (dt == kHalf || dt == kBFloat16)) {
    Tensor quotient = binary_kernel_call(BinaryOp::Div, a, b, dt);
    return binary_kernel_call(BinaryOp::DivTrunc, quotient, wrap_scalar(1, dt), dt);
  }
  return binary_kernel_call(op, a, b, dt);
}

// op(a, b) in PyTorch's result type, after the bool and zero-divisor checks.
Tensor rounding_division(BinaryOp op, const char* name, const Tensor& a, const Tensor& b) {
  ScalarType dt = result_type(a, b);
  check_not_bool(name, dt, a.dtype(), b.dtype());
  check_divisor(name, dt, a, b);
  return kernel_call(op, a, b, dt);
}
Tensor rounding_division(BinaryOp op, const char* name, const Tensor& a, const Scalar& b) {
  ScalarType dt = result_type(a, b);
  check_not_bool(name, dt, a.dtype(), b.isBoolean() ? kBool : b.type());
  check_divisor(name, dt, a, b);
  return kernel_call(op, a, wrap_scalar(b, dt), dt);
}

enum class Rounding { kTrunc, kFloor };
Rounding parse_rounding_mode(std::string_view mode) {
  if (mode == "trunc") return Rounding::kTrunc;
  EMBER_CHECK(mode == "floor", ValueError,
              "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", mode,
              "'");
  return Rounding::kFloor;
}

// remainder and fmod: d/da = g, d/db = -g * rounded(a / b), the rounding being the op's own.
Tensor modulo(BinaryOp op, const char* name, const char* node, std::string_view rounding,
              const Tensor& a, const Tensor& b) {
  Tensor out = rounding_division(op, name, a, b);
  if (autograd::needs_grad({a, b})) {
    autograd::record(node, out, {a, b},
                     [xa = SavedTensor(a), xb = SavedTensor(b), sa = a.sizes().vec(),
                      sb = b.sizes().vec(), rounding](const variable_list& g) {
                       Tensor quotient = div(xa.unpack(), xb.unpack(), rounding);
                       return variable_list{sum_to(g[0], sa), sum_to(-g[0] * quotient, sb)};
                     });
  }
  return out;
}
Tensor modulo(BinaryOp op, const char* name, const char* node, const Tensor& a, const Scalar& b) {
  Tensor out = rounding_division(op, name, a, b);
  if (autograd::needs_grad({a})) {
    autograd::record(node, out, {a}, [](const variable_list& g) { return g; });
  }
  return out;
}

// div with a rounding mode: a step function, so PyTorch records a zero gradient.
Tensor with_zero_grad(Tensor out, const Tensor& a, const Tensor& b) {
  if (autograd::needs_grad({a, b})) {
    autograd::record("DivBackward2", out, {a, b},
                     [sa = a.sizes().vec(), sb = b.sizes().vec()](const variable_list& g) {
                       return variable_list{zeros(sa, g[0].options()), zeros(sb, g[0].options())};
                     });
  }
  return out;
}

}  // namespace

Tensor remainder(const Tensor& a, const Tensor& b) {
  return modulo(BinaryOp::Remainder, "remainder", "RemainderBackward1", "floor", a, b);
}
Tensor remainder(const Tensor& a, const Scalar& b) {
  return modulo(BinaryOp::Remainder, "remainder", "RemainderBackward0", a, b);
}
Tensor remainder(const Scalar& a, const Tensor& b) {
  return remainder(wrap_scalar(a, result_type(b, a)), b);
}
Tensor fmod(const Tensor& a, const Tensor& b) {
  return modulo(BinaryOp::Fmod, "fmod", "FmodBackward1", "trunc", a, b);
}
Tensor fmod(const Tensor& a, const Scalar& b) {
  return modulo(BinaryOp::Fmod, "fmod", "FmodBackward0", a, b);
}

// PyTorch 1.13 rounds floor_divide toward -inf (it truncated before 1.13). No gradient.
Tensor floor_divide(const Tensor& a, const Tensor& b) {
  return rounding_division(BinaryOp::DivFloor, "floor_divide", a, b);
}
Tensor floor_divide(const Tensor& a, const Scalar& b) {
  return rounding_division(BinaryOp::DivFloor, "floor_divide", a, b);
}

Tensor div(const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return div(a, b);
  const bool trunc = parse_rounding_mode(*rounding_mode) == Rounding::kTrunc;
  Tensor out = rounding_division(trunc ? BinaryOp::DivTrunc : BinaryOp::DivFloor,
                                 trunc ? "div_trunc" : "div_floor", a, b);
  return with_zero_grad(out, a, b);
}
Tensor div(const Tensor& a, const Scalar& b, std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return div(a, b);
  const bool trunc = parse_rounding_mode(*rounding_mode) == Rounding::kTrunc;
  Tensor out = rounding_division(trunc ? BinaryOp::DivTrunc : BinaryOp::DivFloor,
                                 trunc ? "div_trunc" : "div_floor", a, b);
  if (autograd::needs_grad({a})) {
    autograd::record("DivBackward3", out, {a},
                     [](const variable_list& g) { return variable_list{zeros_like(g[0])}; });
  }
  return out;
}

Tensor Tensor::div(const Tensor& o, std::optional<std::string_view> rounding_mode) const {
  return ember::div(*this, o, rounding_mode);
}
Tensor Tensor::div(const Scalar& o, std::optional<std::string_view> rounding_mode) const {
  return ember::div(*this, o, rounding_mode);
}

}  // namespace ember
