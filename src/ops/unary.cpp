// Unary front ends and their gradient rules.
#include <limits>

#include "core/autocast_hook.h"
#include "core/tensor_factory.h"
#include "ops/elementwise.h"
#include "ops/promotion.h"

namespace ember {

using autograd::SavedTensor;
using autograd::variable_list;

namespace {

constexpr double kLn2 = 0.69314718055994530942, kLn10 = 2.30258509299404568402;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;  // erf's derivative at 0

// Ops defined for every dtype keep it (neg, abs, relu...); "float ops" promote integers.
Tensor keep_dtype(UnaryOp op, const Tensor& a, OpParams p = {}) {
  return unary_kernel_call(op, a, a.dtype(), p);
}
Tensor float_op(UnaryOp op, const Tensor& a, OpParams p = {}) {
  return unary_kernel_call(op, a, float_result_type(a.dtype()), p);
}

// Records a unary op whose gradient is g * dfdx(x, y).
template <typename DfDx>
Tensor with_grad(const char* name, const Tensor& a, Tensor out, bool save_input, bool save_out,
                 DfDx dfdx) {
  if (autograd::needs_grad({a})) {
    SavedTensor sx = save_input ? SavedTensor(a) : SavedTensor();
    SavedTensor sy = save_out ? SavedTensor(out, true) : SavedTensor();
    autograd::record(name, out, {a}, [sx, sy, dfdx](const variable_list& g) {
      return variable_list{g[0] * dfdx(sx.unpack(), sy.unpack())};
    });
  }
  return out;
}

// grad where y > threshold, else 0, in one pass (relu's gradient); linear in grad, so its own
// gradient (for double backward) is itself.
Tensor threshold_backward(const Tensor& grad, const Tensor& y, double threshold) {
  Tensor out = binary_kernel_call(BinaryOp::ThresholdBackward, grad, y,
                                  promote_types(grad.dtype(), y.dtype()), OpParams{threshold, 0.0});
  if (autograd::needs_grad({grad})) {
    autograd::record("ThresholdBackwardBackward0", out, {grad},
                     [sy = SavedTensor(y), threshold](const variable_list& g) {
                       return variable_list{threshold_backward(g[0], sy.unpack(), threshold)};
                     });
  }
  return out;
}

// gelu's gradient. Without a graph to build it is one pass of the backend's GeluBackward kernel
// (PyTorch's gelu_backward); a backward that builds one (create_graph) composes gelu' of
// differentiable ops, so that second derivatives exist.
Tensor gelu_backward(const Tensor& grad, const Tensor& x, bool tanh_form) {
  if (!GradMode::is_enabled()) {
    return binary_kernel_call(tanh_form ? BinaryOp::GeluTanhBackward : BinaryOp::GeluBackward, grad,
                              x, promote_types(grad.dtype(), x.dtype()));
  }
  if (tanh_form) {
    const double k = 0.79788456080286535588, c = 0.044715;
    const Tensor t = tanh(k * (x + c * x * x * x));
    return grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x));
  }
  const Tensor cdf = 0.5 * (1 + erf(x * 0.70710678118654752440));
  const Tensor pdf = exp(-0.5 * x * x) * 0.39894228040143267794;
  return grad * (cdf + x * pdf);
}

}  // namespace

Tensor neg(const Tensor& a) {
  EMBER_CHECK(a.dtype() != kBool, TypeError,
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
              "to invert a mask, use the `~` or `logical_not()` operator instead.");
  Tensor out = keep_dtype(UnaryOp::Neg, a);
  if (autograd::needs_grad({a})) {
    autograd::record("NegBackward0", out, {a},
                     [](const variable_list& g) { return variable_list{-g[0]}; });
  }
  return out;
}

Tensor abs(const Tensor& a) {
  EMBER_CHECK(a.dtype() != kBool, TypeError, "\"abs\" not implemented for 'Bool'");
  return with_grad("AbsBackward0", a, keep_dtype(UnaryOp::Abs, a), true, false,
                   [](const Tensor& x, const Tensor&) { return sign(x); });
}
Tensor exp(const Tensor& a) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::exp, a);
    return exp(ac.cast(a));
  }
  return with_grad("ExpBackward0", a, float_op(UnaryOp::Exp, a), false, true,
                   [](const Tensor&, const Tensor& y) { return y; });
}
Tensor log(const Tensor& a) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::log, a);
    return log(ac.cast(a));
  }
  return with_grad("LogBackward0", a, float_op(UnaryOp::Log, a), true, false,
                   [](const Tensor& x, const Tensor&) { return x.pow(-1); });
}
Tensor log1p(const Tensor& a) {
  return with_grad("Log1PBackward0", a, float_op(UnaryOp::Log1p, a), true, false,
                   [](const Tensor& x, const Tensor&) { return (x + 1).pow(-1); });
}
Tensor sqrt(const Tensor& a) {
  return with_grad("SqrtBackward0", a, float_op(UnaryOp::Sqrt, a), false, true,
                   [](const Tensor&, const Tensor& y) { return 0.5 / y; });
}
Tensor rsqrt(const Tensor& a) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::rsqrt, a);
    return rsqrt(ac.cast(a));
  }
  return with_grad("RsqrtBackward0", a, float_op(UnaryOp::Rsqrt, a), false, true,
                   [](const Tensor&, const Tensor& y) { return -0.5 * y * y * y; });
}
Tensor square(const Tensor& a) {
  if (a.dtype() == kBool) return pow(a, 2);
  return with_grad("PowBackward0", a, keep_dtype(UnaryOp::Square, a), true, false,
                   [](const Tensor& x, const Tensor&) { return 2 * x; });
}
Tensor sin(const Tensor& a) {
  return with_grad("SinBackward0", a, float_op(UnaryOp::Sin, a), true, false,
                   [](const Tensor& x, const Tensor&) { return cos(x); });
}
Tensor cos(const Tensor& a) {
  return with_grad("CosBackward0", a, float_op(UnaryOp::Cos, a), true, false,
                   [](const Tensor& x, const Tensor&) { return -sin(x); });
}
Tensor sign(const Tensor& a) {
  return with_grad("SignBackward0", a, keep_dtype(UnaryOp::Sign, a), false, true,
                   [](const Tensor&, const Tensor& y) { return zeros_like(y); });
}
// floor, ceil and trunc keep the dtype: integers are whole already and come back as a copy, as
// in PyTorch; bool is rejected, as PyTorch does. The gradient is zero (almost everywhere).
Tensor rounding_op(const char* name, const char* backward_name, UnaryOp op, const Tensor& a) {
  EMBER_CHECK(a.dtype() != kBool, TypeError, "\"", name, "\" not implemented for 'Bool'");
  Tensor out = is_floating_point(a.dtype()) ? keep_dtype(op, a) : a.clone();
  if (autograd::needs_grad({a})) {
    autograd::record(backward_name, out, {a},
                     [](const variable_list& g) { return variable_list{zeros_like(g[0])}; });
  }
  return out;
}
Tensor floor(const Tensor& a) {
  return rounding_op("floor", "FloorBackward0", UnaryOp::Floor, a);
}
Tensor ceil(const Tensor& a) {
  return rounding_op("ceil", "CeilBackward0", UnaryOp::Ceil, a);
}
Tensor trunc(const Tensor& a) {
  return rounding_op("trunc", "TruncBackward0", UnaryOp::Trunc, a);
}
Tensor frac(const Tensor& a) {
  // PyTorch has no integer frac (it would be all zeros) and rejects them.
  EMBER_CHECK(is_floating_point(a.dtype()), TypeError, "\"frac\" not implemented for '",
              to_string(a.dtype()), "'");
  Tensor out = keep_dtype(UnaryOp::Frac, a);
  if (autograd::needs_grad({a})) {
    autograd::record("FracBackward0", out, {a},
                     [](const variable_list& g) { return variable_list{g[0]}; });
  }
  return out;
}
Tensor tan(const Tensor& a) {
  return with_grad("TanBackward0", a, float_op(UnaryOp::Tan, a), false, true,
                   [](const Tensor&, const Tensor& y) { return 1 + y * y; });
}
Tensor asin(const Tensor& a) {
  return with_grad("AsinBackward0", a, float_op(UnaryOp::Asin, a), true, false,
                   [](const Tensor& x, const Tensor&) { return rsqrt(1 - x * x); });
}
Tensor acos(const Tensor& a) {
  return with_grad("AcosBackward0", a, float_op(UnaryOp::Acos, a), true, false,
                   [](const Tensor& x, const Tensor&) { return -rsqrt(1 - x * x); });
}
Tensor atan(const Tensor& a) {
  return with_grad("AtanBackward0", a, float_op(UnaryOp::Atan, a), true, false,
                   [](const Tensor& x, const Tensor&) { return 1 / (1 + x * x); });
}
Tensor sinh(const Tensor& a) {
  return with_grad("SinhBackward0", a, float_op(UnaryOp::Sinh, a), true, false,
                   [](const Tensor& x, const Tensor&) { return cosh(x); });
}
Tensor cosh(const Tensor& a) {
  return with_grad("CoshBackward0", a, float_op(UnaryOp::Cosh, a), true, false,
                   [](const Tensor& x, const Tensor&) { return sinh(x); });
}
Tensor expm1(const Tensor& a) {
  return with_grad("Expm1Backward0", a, float_op(UnaryOp::Expm1, a), false, true,
                   [](const Tensor&, const Tensor& y) { return y + 1; });
}
Tensor erf(const Tensor& a) {
  return with_grad("ErfBackward0", a, float_op(UnaryOp::Erf, a), true, false,
                   [](const Tensor& x, const Tensor&) { return kTwoOverSqrtPi * exp(-x * x); });
}
Tensor erfinv(const Tensor& a) {
  return with_grad("ErfinvBackward0", a, float_op(UnaryOp::Erfinv, a), false, true,
                   [](const Tensor&, const Tensor& y) { return exp(y * y) / kTwoOverSqrtPi; });
}
Tensor log2(const Tensor& a) {
  return with_grad("Log2Backward0", a, float_op(UnaryOp::Log2, a), true, false,
                   [](const Tensor& x, const Tensor&) { return 1 / (x * kLn2); });
}
Tensor log10(const Tensor& a) {
  return with_grad("Log10Backward0", a, float_op(UnaryOp::Log10, a), true, false,
                   [](const Tensor& x, const Tensor&) { return 1 / (x * kLn10); });
}
Tensor exp2(const Tensor& a) {
  return with_grad("Exp2Backward0", a, float_op(UnaryOp::Exp2, a), false, true,
                   [](const Tensor&, const Tensor& y) { return y * kLn2; });
}
Tensor relu(const Tensor& a) {
  EMBER_CHECK(a.dtype() != kBool, TypeError, "Boolean inputs not supported for relu");
  Tensor out = keep_dtype(UnaryOp::Relu, a);
  if (autograd::needs_grad({a})) {
    autograd::record("ReluBackward0", out, {a},
                     [sy = SavedTensor(out, true)](const variable_list& g) {
                       return variable_list{threshold_backward(g[0], sy.unpack(), 0.0)};
                     });
  }
  return out;
}
Tensor sigmoid(const Tensor& a) {
  return with_grad("SigmoidBackward0", a, float_op(UnaryOp::Sigmoid, a), false, true,
                   [](const Tensor&, const Tensor& y) { return y * (1 - y); });
}
Tensor tanh(const Tensor& a) {
  return with_grad("TanhBackward0", a, float_op(UnaryOp::Tanh, a), false, true,
                   [](const Tensor&, const Tensor& y) { return 1 - y * y; });
}
Tensor silu(const Tensor& a) {
  EMBER_CHECK(is_floating_point(a.dtype()), TypeError, "silu does not support dtype ",
              to_string(a.dtype()), " (expected a floating point dtype)");
  return with_grad("SiluBackward0", a, float_op(UnaryOp::Silu, a), true, false,
                   [](const Tensor& x, const Tensor&) {
                     Tensor s = sigmoid(x);
                     return s * (1 + x * (1 - s));
                   });
}
Tensor gelu(const Tensor& a, const std::string& approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh", ValueError,
              "gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
  EMBER_CHECK(is_floating_point(a.dtype()), TypeError, "gelu does not support dtype ",
              to_string(a.dtype()));
  const bool tanh_form = approximate == "tanh";
  Tensor out = float_op(tanh_form ? UnaryOp::GeluTanh : UnaryOp::Gelu, a);
  if (autograd::needs_grad({a})) {
    autograd::record("GeluBackward0", out, {a},
                     [sx = SavedTensor(a), tanh_form](const variable_list& g) {
                       return variable_list{gelu_backward(g[0], sx.unpack(), tanh_form)};
                     });
  }
  return out;
}

Tensor clamp(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max) {
  EMBER_CHECK(min || max, ValueError, "clamp: at least one of 'min' or 'max' must not be None");
  // The bounds take part in promotion as scalars: clamp(bool, -1, 1) is int64, as in PyTorch.
  ScalarType dt = a.dtype();
  if (min) dt = result_type(empty({0}, dt), *min);
  if (max) dt = result_type(empty({0}, dt), *max);
  const double inf = std::numeric_limits<double>::infinity();
  OpParams p{min ? min->toDouble() : -inf, max ? max->toDouble() : inf};
  if (!is_floating_point(dt)) {  // keep the bounds representable in the integer type
    p.a = std::max(p.a, -9.2e18);
    p.b = std::min(p.b, 9.2e18);
  }
  Tensor out = unary_kernel_call(UnaryOp::Clamp, a, dt, p);
  if (autograd::needs_grad({a})) {
    autograd::record("ClampBackward1", out, {a}, [sx = SavedTensor(a), p](const variable_list& g) {
      Tensor x = sx.unpack();
      Tensor mask = logical_and(x.ge(p.a), x.le(p.b));
      return variable_list{g[0] * mask.to(g[0].dtype())};
    });
  }
  return out;
}

Tensor logical_not(const Tensor& a) {
  return unary_kernel_call(UnaryOp::LogicalNot, a, a.dtype());
}
Tensor isnan(const Tensor& a) {
  return unary_kernel_call(UnaryOp::IsNan, a, a.dtype());
}
// |x| against infinity (NaN is neither infinite nor finite); integer and bool tensors hold no
// infinities. Detached: the result is bool, so nothing of it is differentiable.
Tensor isinf(const Tensor& a) {
  if (!a.is_floating_point()) return zeros_like(a, TensorOptions().dtype(kBool));
  return eq(abs(a.detach()), Scalar(std::numeric_limits<double>::infinity()));
}
Tensor isfinite(const Tensor& a) {
  if (!a.is_floating_point()) return ones_like(a, TensorOptions().dtype(kBool));
  return lt(abs(a.detach()), Scalar(std::numeric_limits<double>::infinity()));
}

// ---- Tensor methods ----
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return ember::clamp(*this, min, max);
}

Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) const {
  autograd::check_inplace_allowed(*this, "clamp_");
  return assign_inplace(const_cast<Tensor&>(*this),
                        ember::clamp(autograd::needs_grad({*this}) ? clone() : *this, min, max),
                        "clamp_");
}

}  // namespace ember
