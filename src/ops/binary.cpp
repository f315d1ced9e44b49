// Binary front ends (arithmetic, comparisons, where) and their gradient rules.
#include <cmath>

#include "core/autocast_hook.h"
#include "core/broadcast.h"
#include "core/tensor_factory.h"
#include "ops/elementwise.h"
#include "ops/promotion.h"

namespace ember {

using autograd::SavedTensor;
using autograd::sum_to;
using autograd::variable_list;

namespace {

std::vector<int64_t> shape_of(const Tensor& t) {
  return t.sizes().vec();
}

Tensor arith(BinaryOp op, const Tensor& a, const Tensor& b, OpParams p = {}) {
  return binary_kernel_call(op, a, b, result_type(a, b), p);
}
Tensor arith(BinaryOp op, const Tensor& a, const Scalar& s, OpParams p = {}) {
  ScalarType dt = result_type(a, s);
  return binary_kernel_call(op, a, wrap_scalar(s, dt), dt, p);
}

}  // namespace

// ---- add / sub ----
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  Tensor out = arith(BinaryOp::Add, a, b, {alpha.toDouble()});
  if (autograd::needs_grad({a, b})) {
    double al = alpha.toDouble();
    autograd::record(
        "AddBackward0", out, {a, b},
        [sa = shape_of(a), sb = shape_of(b), al](const variable_list& g) {
          return variable_list{sum_to(g[0], sa), sum_to(al == 1.0 ? g[0] : g[0] * al, sb)};
        });
  }
  return out;
}
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  Tensor out = arith(BinaryOp::Add, a, b, {alpha.toDouble()});
  if (autograd::needs_grad({a})) {
    autograd::record("AddBackward1", out, {a}, [](const variable_list& g) { return g; });
  }
  return out;
}
namespace {
void check_no_bool_sub(ScalarType a, ScalarType b) {
  EMBER_CHECK(a != kBool && b != kBool, TypeError,
              "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
              "trying to invert a mask, use the `~` or `logical_not()` operator instead. (got ",
              to_string(a), " and ", to_string(b), ")");
}
void check_pow_dtypes(ScalarType base, ScalarType result, const Scalar* exponent) {
  EMBER_CHECK(result != kBool, TypeError, "\"pow\" not implemented for 'Bool'");
  EMBER_CHECK(
      !(exponent && is_integral(result) && exponent->isIntegral(false) && exponent->toLong() < 0),
      ValueError, "Integers to negative integer powers are not allowed. (got a ", to_string(base),
      " tensor to the power ", exponent ? exponent->toLong() : 0, ")");
}
}  // namespace

Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  check_no_bool_sub(a.dtype(), b.dtype());
  Tensor out = arith(BinaryOp::Sub, a, b, {alpha.toDouble()});
  if (autograd::needs_grad({a, b})) {
    double al = alpha.toDouble();
    autograd::record("SubBackward0", out, {a, b},
                     [sa = shape_of(a), sb = shape_of(b), al](const variable_list& g) {
                       return variable_list{sum_to(g[0], sa), sum_to(g[0] * -al, sb)};
                     });
  }
  return out;
}
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  check_no_bool_sub(a.dtype(), b.isBoolean() ? kBool : b.type());
  Tensor out = arith(BinaryOp::Sub, a, b, {alpha.toDouble()});
  if (autograd::needs_grad({a})) {
    autograd::record("SubBackward1", out, {a}, [](const variable_list& g) { return g; });
  }
  return out;
}
Tensor operator-(const Scalar& a, const Tensor& b) {
  check_no_bool_sub(a.isBoolean() ? kBool : a.type(), b.dtype());
  return add(-b, a);
}

// ---- mul / div ----
Tensor mul(const Tensor& a, const Tensor& b) {
  Tensor out = arith(BinaryOp::Mul, a, b);
  if (autograd::needs_grad({a, b})) {
    bool ga = a.requires_grad(), gb = b.requires_grad();
    autograd::record(
        "MulBackward0", out, {a, b},
        [xa = gb ? SavedTensor(a) : SavedTensor(), xb = ga ? SavedTensor(b) : SavedTensor(),
         sa = shape_of(a), sb = shape_of(b)](const variable_list& g) {
          return variable_list{xb.defined() ? sum_to(g[0] * xb.unpack(), sa) : Tensor(),
                               xa.defined() ? sum_to(g[0] * xa.unpack(), sb) : Tensor()};
        });
  }
  return out;
}
Tensor mul(const Tensor& a, const Scalar& b) {
  Tensor out = arith(BinaryOp::Mul, a, b);
  if (autograd::needs_grad({a})) {
    autograd::record("MulBackward1", out, {a},
                     [b](const variable_list& g) { return variable_list{g[0] * b}; });
  }
  return out;
}
Tensor div(const Tensor& a, const Tensor& b) {
  ScalarType dt = float_result_type(result_type(a, b));
  Tensor out = binary_kernel_call(BinaryOp::Div, a, b, dt);
  if (autograd::needs_grad({a, b})) {
    autograd::record("DivBackward0", out, {a, b},
                     [xa = SavedTensor(a), xb = SavedTensor(b), sa = shape_of(a),
                      sb = shape_of(b)](const variable_list& g) {
                       Tensor bb = xb.unpack();
                       Tensor ga = g[0] / bb;
                       return variable_list{sum_to(ga, sa), sum_to(-ga * xa.unpack() / bb, sb)};
                     });
  }
  return out;
}
Tensor div(const Tensor& a, const Scalar& b) {
  ScalarType dt = float_result_type(result_type(a, b));
  Tensor out = binary_kernel_call(BinaryOp::Div, a, wrap_scalar(b, dt), dt);
  if (autograd::needs_grad({a})) {
    autograd::record("DivBackward1", out, {a},
                     [b](const variable_list& g) { return variable_list{g[0] / b}; });
  }
  return out;
}
Tensor operator/(const Scalar& a, const Tensor& b) {
  ScalarType dt = float_result_type(result_type(b, a));
  return div(wrap_scalar(a, dt), b);
}

// ---- pow ----
Tensor pow(const Tensor& a, const Tensor& e) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::pow, a);
    return pow(ac.cast(a), ac.cast(e));
  }
  check_pow_dtypes(a.dtype(), result_type(a, e), nullptr);
  Tensor out = arith(BinaryOp::Pow, a, e);
  if (autograd::needs_grad({a, e})) {
    autograd::record("PowBackward1", out, {a, e},
                     [xa = SavedTensor(a), xe = SavedTensor(e), y = SavedTensor(out, true),
                      sa = shape_of(a), se = shape_of(e)](const variable_list& g) {
                       Tensor base = xa.unpack(), ex = xe.unpack();
                       Tensor ga = g[0] * ex * pow(base, ex - 1);
                       // d/de a^e = a^e log a, taken as 0 where a == 0 and e >= 0 (PyTorch).
                       Tensor ge_ = g[0] * y.unpack() * log(base);
                       ge_ = where(logical_and(base.eq(0), ex.ge(0)), zeros_like(ge_), ge_);
                       return variable_list{sum_to(ga, sa), sum_to(ge_, se)};
                     });
  }
  return out;
}
Tensor pow(const Tensor& a, const Scalar& e) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::pow, a);
    return pow(ac.cast(a), e);
  }
  ScalarType dt = result_type(a, e);
  // A bool tensor to a bool power: x ** True is x, x ** False is all True (PyTorch 2 takes these
  // paths before its kernels; 1.13 refused them). No other power of a bool tensor stays bool.
  if (dt == kBool && e.isBoolean()) return e.toBool() ? a.clone() : ones_like(a);
  check_pow_dtypes(a.dtype(), dt, &e);
  Tensor out = unary_kernel_call(UnaryOp::PowScalar, a, dt, {e.toDouble()});
  if (autograd::needs_grad({a})) {
    autograd::record("PowBackward0", out, {a}, [xa = SavedTensor(a), e](const variable_list& g) {
      double ev = e.toDouble();
      if (ev == 0.0) return variable_list{zeros_like(g[0])};
      return variable_list{g[0] * ev * pow(xa.unpack(), ev - 1)};
    });
  }
  return out;
}
Tensor pow(const Scalar& a, const Tensor& e) {
  if (amp::autocast_applies(e)) {
    amp::AutocastScope ac(amp::AutocastOp::pow, e);
    return pow(a, ac.cast(e));
  }
  ScalarType dt = result_type(e, a);
  check_pow_dtypes(e.dtype(), dt, nullptr);
  Tensor out = unary_kernel_call(UnaryOp::RPowScalar, e, dt, {a.toDouble()});
  if (autograd::needs_grad({e})) {
    autograd::record("PowBackward2", out, {e},
                     [y = SavedTensor(out, true), a](const variable_list& g) {
                       return variable_list{g[0] * y.unpack() * std::log(a.toDouble())};
                     });
  }
  return out;
}

// ---- maximum / minimum: ties split the gradient evenly, as PyTorch does ----
namespace {
Tensor extremum(BinaryOp op, const char* name, const Tensor& a, const Tensor& b) {
  Tensor out = arith(op, a, b);
  if (autograd::needs_grad({a, b})) {
    bool is_max = op == BinaryOp::Maximum;
    autograd::record(name, out, {a, b},
                     [xa = SavedTensor(a), xb = SavedTensor(b), sa = shape_of(a), sb = shape_of(b),
                      is_max](const variable_list& g) {
                       Tensor x = xa.unpack(), y = xb.unpack();
                       Tensor wins = (is_max ? x.gt(y) : x.lt(y)).to(g[0].dtype());
                       Tensor ties = x.eq(y).to(g[0].dtype()) * 0.5;
                       Tensor wa = wins + ties;
                       return variable_list{sum_to(g[0] * wa, sa), sum_to(g[0] * (1 - wa), sb)};
                     });
  }
  return out;
}
}  // namespace
Tensor maximum(const Tensor& a, const Tensor& b) {
  return extremum(BinaryOp::Maximum, "MaximumBackward0", a, b);
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return extremum(BinaryOp::Minimum, "MinimumBackward0", a, b);
}

// ---- comparisons and logic (no gradient) ----
#define EMBER_COMPARISON(fn, OP)                \
  Tensor fn(const Tensor& a, const Tensor& b) { \
    return arith(BinaryOp::OP, a, b);           \
  }                                             \
  Tensor fn(const Tensor& a, const Scalar& b) { \
    return arith(BinaryOp::OP, a, b);           \
  }
EMBER_COMPARISON(eq, Eq)
EMBER_COMPARISON(ne, Ne)
EMBER_COMPARISON(lt, Lt)
EMBER_COMPARISON(le, Le)
EMBER_COMPARISON(gt, Gt)
EMBER_COMPARISON(ge, Ge)
#undef EMBER_COMPARISON
Tensor logical_and(const Tensor& a, const Tensor& b) {
  return binary_kernel_call(BinaryOp::LogicalAnd, a, b, result_type(a, b));
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return binary_kernel_call(BinaryOp::LogicalOr, a, b, result_type(a, b));
}

// ---- where ----
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(cond.dtype() == kBool, TypeError,
              "where expected condition to be a boolean tensor, but got a tensor with dtype ",
              to_string(cond.dtype()));
  check_same_device(a, b, "where");
  check_same_device(cond, a, "where");
  ScalarType dt = result_type(a, b);
  DimVector shape = broadcast_dims(broadcast_dims(cond.sizes(), a.sizes()), b.sizes());
  Tensor x, y;
  {
    NoGradGuard no_grad;
    x = a.to(dt);
    y = b.to(dt);
  }
  Tensor out = make_empty(shape, dt, a.device());
  backend_for(out).where(out, cond, x, y);
  if (autograd::needs_grad({a, b})) {
    autograd::record(
        "WhereBackward0", out, {a, b},
        [c = SavedTensor(cond), sa = shape_of(a), sb = shape_of(b)](const variable_list& g) {
          Tensor z = zeros_like(g[0]);
          Tensor m = c.unpack();
          return variable_list{sum_to(where(m, g[0], z), sa), sum_to(where(m, z, g[0]), sb)};
        });
  }
  return out;
}
// The scalar is filled on the tensor's device (a kernel argument), not copied there: a copy
// from pageable host memory would wait for the device.
Tensor where(const Tensor& cond, const Tensor& a, const Scalar& b) {
  return where(cond, a, full({}, b, TensorOptions().dtype(result_type(a, b)).device(a.device())));
}
Tensor where(const Tensor& cond, const Scalar& a, const Tensor& b) {
  return where(cond, full({}, a, TensorOptions().dtype(result_type(b, a)).device(b.device())), b);
}

// ---- Tensor methods ----
Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const {
  return ember::add(*this, o, alpha);
}
Tensor Tensor::add(const Scalar& o, const Scalar& alpha) const {
  return ember::add(*this, o, alpha);
}
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const {
  return ember::sub(*this, o, alpha);
}
Tensor Tensor::sub(const Scalar& o, const Scalar& alpha) const {
  return ember::sub(*this, o, alpha);
}

// ---- in place (binary_inplace: ops/elementwise.h) ----
Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) const {
  return binary_inplace(const_cast<Tensor&>(*this), o, "add_", BinaryOp::Add, {alpha.toDouble()},
                        [&](const Tensor& s, const Tensor& x) { return ember::add(s, x, alpha); });
}
Tensor& Tensor::add_(const Scalar& o, const Scalar& alpha) const {
  return binary_inplace(const_cast<Tensor&>(*this), o, "add_", BinaryOp::Add, {alpha.toDouble()},
                        [&](const Tensor& s, const Scalar& x) { return ember::add(s, x, alpha); });
}
Tensor& Tensor::sub_(const Tensor& o, const Scalar& alpha) const {
  return binary_inplace(const_cast<Tensor&>(*this), o, "sub_", BinaryOp::Sub, {alpha.toDouble()},
                        [&](const Tensor& s, const Tensor& x) { return ember::sub(s, x, alpha); });
}
Tensor& Tensor::sub_(const Scalar& o, const Scalar& alpha) const {
  return binary_inplace(const_cast<Tensor&>(*this), o, "sub_", BinaryOp::Sub, {alpha.toDouble()},
                        [&](const Tensor& s, const Scalar& x) { return ember::sub(s, x, alpha); });
}

}  // namespace ember
