// The special functions lgamma, digamma, polygamma and i0 (kernels: kernel_math/
// special_functions.h), and logit. Integers promote to the default float dtype, as PyTorch's.
// Each gradient is the next function of the family, recorded, so that it is differentiable again:
// lgamma' = digamma, digamma' = polygamma(1), polygamma(n)' = polygamma(n + 1), i0' = i1,
// i1' = i0 - i1 / x (1/2 at 0).
#include <limits>

#include "ember/autograd.h"
#include "ops/elementwise.h"
#include "ops/promotion.h"

namespace ember {

using autograd::SavedTensor;
using autograd::variable_list;

namespace {

Tensor float_kernel(UnaryOp op, const Tensor& a, OpParams p = {}) {
  return unary_kernel_call(op, a, float_result_type(a.dtype()), p);
}

// Records out = f(a) with the gradient g * dfdx(a).
template <typename DfDx>
Tensor with_input_grad(const char* name, const Tensor& a, Tensor out, DfDx dfdx) {
  if (autograd::needs_grad({a})) {
    autograd::record(name, out, {a}, [sx = SavedTensor(a), dfdx](const variable_list& g) {
      return variable_list{g[0] * dfdx(sx.unpack())};
    });
  }
  return out;
}

// The modified Bessel function of order 1 (i0's derivative; not an op of its own here).
Tensor i1(const Tensor& a) {
  return with_input_grad("I1Backward0", a, float_kernel(UnaryOp::I1, a), [](const Tensor& x) {
    Tensor safe_x = where(x.eq(0), Scalar(1.0), x);
    return where(x.eq(0), Scalar(0.5), i0(x) - i1(safe_x) / safe_x);
  });
}

}  // namespace

Tensor lgamma(const Tensor& a) {
  return with_input_grad("LgammaBackward0", a, float_kernel(UnaryOp::Lgamma, a),
                         [](const Tensor& x) { return digamma(x); });
}

Tensor digamma(const Tensor& a) {
  return with_input_grad("DigammaBackward0", a, float_kernel(UnaryOp::Digamma, a),
                         [](const Tensor& x) { return polygamma(1, x); });
}

Tensor polygamma(int64_t n, const Tensor& a) {
  EMBER_CHECK(n >= 0, ValueError, "polygamma(n, x) does not support negative n. (got n = ", n, ")");
  Tensor out = float_kernel(UnaryOp::Polygamma, a, OpParams{static_cast<double>(n), 0.0});
  return with_input_grad("PolygammaBackward0", a, out,
                         [n](const Tensor& x) { return polygamma(n + 1, x); });
}

Tensor i0(const Tensor& a) {
  return with_input_grad("I0Backward0", a, float_kernel(UnaryOp::I0, a),
                         [](const Tensor& x) { return i1(x); });
}

// log(x) - log1p(-x) rather than log(x / (1 - x)): no rounding of the quotient near 0 and 1.
// The gradient is PyTorch's: g / (x (1 - x)), NaN outside [0, 1] without eps and 0 outside
// [eps, 1 - eps] with it.
Tensor logit(const Tensor& a, std::optional<double> eps) {
  const ScalarType dt = float_result_type(a.dtype());
  Tensor out;
  {
    NoGradGuard no_grad;
    Tensor x = a.to(dt);
    if (eps) x = clamp(x, *eps, 1.0 - *eps);
    out = log(x) - log1p(-x);
  }
  if (autograd::needs_grad({a})) {
    autograd::record("LogitBackward0", out, {a},
                     [sx = SavedTensor(a), eps](const variable_list& g) {
                       Tensor x = sx.unpack();
                       const double lo = eps ? *eps : 0.0, hi = eps ? 1.0 - *eps : 1.0;
                       const double outside = eps ? 0.0 : std::numeric_limits<double>::quiet_NaN();
                       Tensor inside = logical_and(x.ge(lo), x.le(hi));
                       return variable_list{where(inside, g[0] / (x * (1 - x)), Scalar(outside))};
                     });
  }
  return out;
}

}  // namespace ember
