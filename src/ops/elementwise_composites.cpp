// Elementwise ops composed from other ops (their gradients follow from those ops'): sinc, sgn,
// signbit, isposinf, isneginf, isreal, xlogy, logaddexp(2), heaviside, float_power, lcm,
// nan_to_num, isclose, isin; and gcd, one kernel. Dtype rules and error texts are PyTorch 1.13's.
#include <limits>

#include "core/tensor_factory.h"
#include "ops/elementwise.h"
#include "ops/promotion.h"

namespace ember {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kInvLn2 = 1.44269504088896340736;

// float16 and bfloat16 compute in float32 (one rounding at the end, as PyTorch's kernels do).
Tensor upcast_16bit(const Tensor& a) {
  return a.dtype() == kHalf || a.dtype() == kBFloat16 ? a.to(kFloat) : a;
}

Tensor bool_like(const Tensor& a, bool value) {
  return value ? ones_like(a, TensorOptions().dtype(kBool))
               : zeros_like(a, TensorOptions().dtype(kBool));
}

// PyTorch's text for a dtype its kernel lacks, with both operands' dtypes.
void check_dtype(bool ok, ScalarType dt, const Tensor& a, const Tensor& b, const char* kernel) {
  EMBER_CHECK(ok, TypeError, "\"", kernel, "\" not implemented for '", to_string(dt), "' (got ",
              to_string(a.dtype()), " and ", to_string(b.dtype()), " operands)");
}

// log(e^a + e^b) (base e, or base 2 with exp2 and the 1/ln 2 factor); a == b == +-inf gives
// that infinity, where the difference would be NaN.
Tensor log_add_exp(const Tensor& a, const Tensor& b, bool base2, const char* kernel) {
  const ScalarType dt = result_type(a, b);
  check_dtype(is_floating_point(dt), dt, a, b, kernel);
  Tensor x = upcast_16bit(a.to(dt)), y = upcast_16bit(b.to(dt));
  Tensor m = maximum(x, y);
  Tensor rest = base2 ? log1p(exp2(-abs(x - y))) * kInvLn2 : log1p(exp(-abs(x - y)));
  Tensor same_infinity = logical_and(isinf(x), x.eq(y));
  return where(same_infinity, x, m + rest).to(dt);
}

}  // namespace

Tensor sinc(const Tensor& a) {
  const ScalarType dt = float_result_type(a.dtype());
  Tensor x = upcast_16bit(a.to(dt));
  // sin(pi x) / (pi x), 1 at 0; the quotient's operands are made safe at 0 so that its gradient
  // there is 0 (not 0 * NaN).
  Tensor zero = x.eq(0);
  Tensor px = where(zero, Scalar(1.0), x * kPi);
  return where(zero, Scalar(1.0), sin(px) / px).to(dt);
}

Tensor sgn(const Tensor& a) {
  return a.dtype() == kBool ? a.clone() : sign(a);
}

Tensor signbit(const Tensor& a) {
  if (a.dtype() == kBool || a.dtype() == kByte) return bool_like(a, false);
  Tensor x = a.detach();
  if (!x.is_floating_point()) return x.lt(0);
  // -0.0 is zero with a negative reciprocal.
  return logical_or(x.lt(0), logical_and(x.eq(0), (1.0 / x).lt(0)));
}

Tensor isposinf(const Tensor& a) {
  if (!a.is_floating_point()) return bool_like(a, false);
  return a.detach().eq(kInf);
}

Tensor isneginf(const Tensor& a) {
  if (!a.is_floating_point()) return bool_like(a, false);
  return a.detach().eq(-kInf);
}

// Every element of a real tensor is real (Ember has no complex dtypes).
Tensor isreal(const Tensor& a) {
  return bool_like(a, true);
}

// x * log(y), 0 where x == 0 unless y is NaN. The x == 0 branch is selected by where, so its
// gradient is 0 in x there, as PyTorch's.
Tensor xlogy(const Tensor& x, const Tensor& y) {
  const ScalarType dt = float_result_type(result_type(x, y));
  Tensor a = upcast_16bit(x.to(dt)), b = upcast_16bit(y.to(dt));
  Tensor product = where(a.eq(0), Scalar(0.0), a * log(b));
  return where(isnan(b), Scalar(std::numeric_limits<double>::quiet_NaN()), product).to(dt);
}
Tensor xlogy(const Tensor& x, const Scalar& y) {
  const ScalarType dt = float_result_type(result_type(x, y));
  return xlogy(x, full({}, y, TensorOptions().dtype(dt).device(x.device())));
}

Tensor logaddexp(const Tensor& a, const Tensor& b) {
  return log_add_exp(a, b, false, "logaddexp_cpu");
}
Tensor logaddexp2(const Tensor& a, const Tensor& b) {
  return log_add_exp(a, b, true, "logaddexp2_cpu");
}

// 0 for a < 0, values for a == 0, 1 for a > 0 (NaN: 0); no gradient in PyTorch.
Tensor heaviside(const Tensor& a, const Tensor& values) {
  EMBER_CHECK(a.dtype() == values.dtype(), Error,
              "heaviside is not yet implemented for tensors with different dtypes. (got ",
              to_string(a.dtype()), " and ", to_string(values.dtype()), ")");
  NoGradGuard no_grad;
  return where(a.eq(0), values, a.gt(0).to(a.dtype()));
}

// pow in float64, whatever the operands' dtypes.
Tensor float_power(const Tensor& a, const Tensor& b) {
  return pow(a.to(kDouble), b.to(kDouble));
}
Tensor float_power(const Tensor& a, const Scalar& b) {
  return pow(a.to(kDouble), Scalar(b.toDouble()));
}

Tensor gcd(const Tensor& a, const Tensor& b) {
  const ScalarType dt = result_type(a, b);
  check_dtype(is_integral(dt, false), dt, a, b, "gcd_cpu");
  return binary_kernel_call(BinaryOp::Gcd, a, b, dt);
}

// |a / gcd(a, b) * b|, 0 where both are 0 (the division by gcd first keeps it in range).
Tensor lcm(const Tensor& a, const Tensor& b) {
  const ScalarType dt = result_type(a, b);
  check_dtype(is_integral(dt, false), dt, a, b, "lcm_cpu");
  Tensor g = gcd(a, b);
  Tensor divisor = where(g.eq(0), Scalar(1), g);
  return abs(div(a.to(dt), divisor, "trunc") * b.to(dt));
}

Tensor nan_to_num(const Tensor& a, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  if (!a.is_floating_point()) return a.clone();
  double largest = std::numeric_limits<double>::max();
  if (a.dtype() == kFloat) largest = std::numeric_limits<float>::max();
  if (a.dtype() == kHalf) largest = 65504.0;
  if (a.dtype() == kBFloat16) largest = 3.3895313892515355e38;
  Tensor out = where(isnan(a), Scalar(nan.value_or(0.0)), a);
  out = where(a.eq(kInf), Scalar(posinf.value_or(largest)), out);
  return where(a.eq(-kInf), Scalar(neginf.value_or(-largest)), out);
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(a.dtype() == b.dtype(), Error, to_string(a.dtype()), " did not match ",
              to_string(b.dtype()));
  EMBER_CHECK(rtol >= 0, Error, "rtol must be greater than or equal to zero, but got ", rtol);
  EMBER_CHECK(atol >= 0, Error, "atol must be greater than or equal to zero, but got ", atol);
  NoGradGuard no_grad;
  Tensor close = a.eq(b);
  if (equal_nan && a.is_floating_point())
    close = logical_or(close, logical_and(isnan(a), isnan(b)));
  if (a.dtype() == kBool || (rtol == 0 && atol == 0)) return close;
  // Integers are compared in the default float dtype, as PyTorch's (no wrap-around in a - b).
  Tensor x = a.is_floating_point() ? a : a.to(kFloat);
  Tensor y = b.is_floating_point() ? b : b.to(kFloat);
  Tensor allowed = abs(y * rtol) + atol;
  Tensor actual = abs(x - y);
  return logical_or(close, logical_and(isfinite(actual), actual.le(allowed)));
}

// Every element against every test element: memory elements x test_elements, which suits the
// small test sets isin is used with.
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert) {
  (void)assume_unique;  // a hint for a sort-based search; the comparison needs none
  check_same_device(elements, test_elements, "isin");
  NoGradGuard no_grad;
  Tensor matches = elements.reshape({-1, 1}).eq(test_elements.reshape({1, -1}));
  Tensor found = matches.sum({1}).gt(0).reshape(elements.sizes());
  return invert ? logical_not(found) : found;
}

}  // namespace ember
