#pragma once
// The math of every elementwise op and reduction, written once and compiled by g++ and nvcc
// (EMBER_HD) so the CPU tests check the same arithmetic the GPU runs. T is the compute type:
// float for half/bfloat16 storage, the dtype itself otherwise.
// <math.h> before <cmath>: it puts the float overloads into the global namespace, so ::exp(float)
// is expf on the CPU as on the GPU instead of the double exp.
#include <math.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "ember/macros.h"
#include "kernel_math/ops_list.h"
#include "kernel_math/special_functions.h"

namespace ember {

namespace fn {
template <typename T>
EMBER_HD_INLINE bool isnan_(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return x != x;
  } else {
    return false;
  }
}
}  // namespace fn

struct NegOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    if constexpr (std::is_same_v<T, bool>) {
      return x;
    } else {
      return -x;
    }
  }
};
struct AbsOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) {
      return x;
    } else {
      return x < T(0) ? T(-x) : x;
    }
  }
};
struct ExpOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::exp(x);
  }
};
struct LogOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::log(x);
  }
};
struct SqrtOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::sqrt(x);
  }
};
struct RsqrtOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return T(1) / ::sqrt(x);
  }
};
struct SquareOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    if constexpr (std::is_same_v<T, bool>) {
      return x;  // x * x, without bool arithmetic
    } else {
      return x * x;
    }
  }
};
struct ReciprocalOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return T(1) / x;
  }
};
struct SinOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::sin(x);
  }
};
struct CosOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::cos(x);
  }
};
struct SignOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    if constexpr (std::is_same_v<T, bool>) {
      return x;
    } else {
      return static_cast<T>((T(0) < x) - (x < T(0)));
    }
  }
};
struct RoundOp {  // half to even (the default rounding mode), as torch.round
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    if constexpr (std::is_floating_point_v<T>) {
      return ::nearbyint(x);
    } else {
      return x;
    }
  }
};
struct ErfOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::erf(x);
  }
};
struct Log1pOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::log1p(x);
  }
};
struct ReluOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    if constexpr (std::is_same_v<T, bool>) {
      return x;
    } else {
      return fn::isnan_(x) ? x : (x > T(0) ? x : T(0));  // NaN propagates, as in PyTorch
    }
  }
};
struct SigmoidOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return T(1) / (T(1) + ::exp(-x));
  }
};
struct TanhOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::tanh(x);
  }
};
// GELU, exact (x * Phi(x)) and approximate="tanh": the front end promotes integers first.
struct GeluOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return x * T(0.5) * (T(1) + ::erf(x * T(0.70710678118654752440)));
  }
};
struct GeluTanhOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    const T k = T(0.79788456080286535588);  // sqrt(2/pi)
    return T(0.5) * x * (T(1) + ::tanh(k * (x + T(0.044715) * x * x * x)));
  }
};
struct SiluOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return x / (T(1) + ::exp(-x));
  }
};
// clamp(x, a, b): p.a / p.b hold the bounds; NaN bounds mean "no bound" (set by the front end
// to -inf/+inf for floats, or to the type's limits for integers).
struct ClampOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams p) const {
    if (fn::isnan_(x)) return x;
    T lo = static_cast<T>(p.a), hi = static_cast<T>(p.b);
    return x < lo ? lo : (x > hi ? hi : x);
  }
};
struct PowScalarOp {  // x ** p.a
  template <typename T>
  EMBER_HD T operator()(T x, OpParams p) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (p.a == 2.0) return x * x;
      if (p.a == 1.0) return x;
      if (p.a == 0.5) return ::sqrt(x);
      return ::pow(x, static_cast<T>(p.a));
    } else {
      return ipow(x, static_cast<int64_t>(p.a));
    }
  }
  template <typename T>
  static EMBER_HD T ipow(T base, int64_t e) {
    if (e < 0) {  // integer division semantics: only 1 and -1 have non-zero reciprocals
      if (base == T(1)) return T(1);
      if constexpr (std::is_signed_v<T>) {
        if (base == T(-1)) return (e & 1) ? T(-1) : T(1);
      }
      return T(0);
    }
    // Multiplied in an unsigned type at least as wide as unsigned int: overflow wraps, as
    // PyTorch's integer pow does, instead of being undefined (int32 65536 ** 2; uint16 and int16
    // would overflow int after promotion).
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      using W =
          std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
      W r = 1, b = static_cast<W>(base);
      while (e) {
        if (e & 1) r = static_cast<W>(r * b);
        b = static_cast<W>(b * b);
        e >>= 1;
      }
      return static_cast<T>(r);
    } else {
      T r = T(1);
      while (e) {
        if (e & 1) r = static_cast<T>(r * base);
        base = static_cast<T>(base * base);
        e >>= 1;
      }
      return r;
    }
  }
};
struct RPowScalarOp {  // p.a ** x
  template <typename T>
  EMBER_HD T operator()(T x, OpParams p) const {
    if constexpr (std::is_floating_point_v<T>) {
      return ::pow(static_cast<T>(p.a), x);
    } else {
      return PowScalarOp::ipow(static_cast<T>(p.a), static_cast<int64_t>(x));
    }
  }
};
struct LogicalNotOp {
  template <typename T>
  EMBER_HD bool operator()(T x, OpParams) const {
    return !static_cast<bool>(x);
  }
};
struct IsNanOp {
  template <typename T>
  EMBER_HD bool operator()(T x, OpParams) const {
    return fn::isnan_(x);
  }
};

// ---- rounding and transcendental functions: floating inputs only (the Floating inputs column of
// ops_list.h) ----
struct FloorOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::floor(x);
  }
};
struct CeilOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::ceil(x);
  }
};
struct TruncOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::trunc(x);
  }
};
struct FracOp {
  // x - trunc(x), as torch.frac: -0.0 gives +0.0 and +-inf gives NaN
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return x - ::trunc(x);
  }
};
struct TanOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::tan(x);
  }
};
struct AsinOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::asin(x);
  }
};
struct AcosOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::acos(x);
  }
};
struct AtanOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::atan(x);
  }
};
struct SinhOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::sinh(x);
  }
};
struct CoshOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::cosh(x);
  }
};
struct Expm1Op {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::expm1(x);
  }
};
struct Log2Op {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::log2(x);
  }
};
struct Log10Op {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::log10(x);
  }
};
struct Exp2Op {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return ::exp2(x);
  }
};
// The inverse of erf on (-1, 1): Giles' single-precision approximation ("Approximating the erfinv
// function", 2010), then Newton steps on erf(x) = y, two in double and one in float, so that the
// result is as accurate as the erf it inverts. erfinv(+-1) is +-inf; NaN outside [-1, 1].
struct ErfinvOp {
  template <typename T>
  EMBER_HD T operator()(T y_in, OpParams) const {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const C y = static_cast<C>(y_in);
    if (y == C(1)) return static_cast<T>(std::numeric_limits<C>::infinity());
    if (y == C(-1)) return static_cast<T>(-std::numeric_limits<C>::infinity());
    if (!(y > C(-1) && y < C(1))) return static_cast<T>(std::numeric_limits<C>::quiet_NaN());
    C w = -::log((C(1) - y) * (C(1) + y));
    C p;
    if (w < C(5)) {
      w -= C(2.5);
      p = C(2.81022636e-08);
      p = C(3.43273939e-07) + p * w;
      p = C(-3.5233877e-06) + p * w;
      p = C(-4.39150654e-06) + p * w;
      p = C(0.00021858087) + p * w;
      p = C(-0.00125372503) + p * w;
      p = C(-0.00417768164) + p * w;
      p = C(0.246640727) + p * w;
      p = C(1.50140941) + p * w;
    } else {
      w = ::sqrt(w) - C(3);
      p = C(-0.000200214257);
      p = C(0.000100950558) + p * w;
      p = C(0.00134934322) + p * w;
      p = C(-0.00367342844) + p * w;
      p = C(0.00573950773) + p * w;
      p = C(-0.0076224613) + p * w;
      p = C(0.00943887047) + p * w;
      p = C(1.00167406) + p * w;
      p = C(2.83297682) + p * w;
    }
    C x = p * y;
    const C two_over_sqrt_pi = C(1.12837916709551257390);
    for (int step = 0; step < (std::is_same_v<C, double> ? 2 : 1); ++step) {
      x -= (::erf(x) - y) / (two_over_sqrt_pi * ::exp(-x * x));
    }
    return static_cast<T>(x);
  }
};
// lgamma, digamma, polygamma (n in p.a), i0 and i1: kernel_math/special_functions.h.
struct LgammaOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return static_cast<T>(::lgamma(static_cast<double>(x)));
  }
};
struct DigammaOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return static_cast<T>(special::digamma(static_cast<double>(x)));
  }
};
struct PolygammaOp {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams p) const {
    return static_cast<T>(special::polygamma(static_cast<int>(p.a), static_cast<double>(x)));
  }
};
struct I0Op {
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    return static_cast<T>(special::bessel_i(0, ::fabs(static_cast<double>(x))));
  }
};
struct I1Op {  // odd: I1(-x) = -I1(x)
  template <typename T>
  EMBER_HD T operator()(T x, OpParams) const {
    const double v = special::bessel_i(1, ::fabs(static_cast<double>(x)));
    return static_cast<T>(x < T(0) ? -v : v);
  }
};

// ---- binary ----
struct AddOp {  // a + alpha * b
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams p) const {
    if constexpr (std::is_same_v<T, bool>) {
      return a || b;
    } else {
      return p.a == 1.0 ? static_cast<T>(a + b) : static_cast<T>(a + static_cast<T>(p.a) * b);
    }
  }
};
struct SubOp {  // a - alpha * b
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams p) const {
    return p.a == 1.0 ? static_cast<T>(a - b) : static_cast<T>(a - static_cast<T>(p.a) * b);
  }
};
struct MulOp {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    if constexpr (std::is_same_v<T, bool>) {
      return a && b;
    } else {
      return static_cast<T>(a * b);
    }
  }
};
struct DivOp {  // true division; the front end promotes integers to float first
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    return a / b;
  }
};
struct PowOp {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    if constexpr (std::is_floating_point_v<T>) {
      return ::pow(a, b);
    } else {
      return PowScalarOp::ipow(a, static_cast<int64_t>(b));
    }
  }
};
struct MaximumOp {  // NaN propagates, as in torch.maximum
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    if (fn::isnan_(a)) return a;
    if (fn::isnan_(b)) return b;
    return a > b ? a : b;
  }
};
struct MinimumOp {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    if (fn::isnan_(a)) return a;
    if (fn::isnan_(b)) return b;
    return a < b ? a : b;
  }
};
// The gradient of relu (threshold p.a = 0): a, the incoming gradient, where b is above the
// threshold, else 0. As in PyTorch's threshold_backward, a NaN b lets the gradient through.
struct ThresholdBackwardOp {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams p) const {
    return b <= static_cast<T>(p.a) ? T(0) : a;
  }
};
// The gradients of gelu: a, the incoming gradient, times gelu'(b) with b the forward's input,
// gelu'(x) = Phi(x) + x phi(x) (the standard normal's distribution and density), in PyTorch's
// formula, so an infinite b gives NaN as PyTorch's does.
struct GeluBackwardOp {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    const T cdf = T(0.5) * (T(1) + ::erf(b * T(0.70710678118654752440)));
    const T pdf = ::exp(T(-0.5) * b * b) * T(0.39894228040143267794);
    return a * (cdf + b * pdf);
  }
};
// The tanh approximation's: with t = sqrt(2/pi) (x + 0.044715 x^3),
// d/dx [x (1 + tanh t) / 2] = (1 + tanh t) / 2 + x (1 - tanh^2 t) / 2 * sqrt(2/pi) (1 + 3 *
// 0.044715 x^2).
struct GeluTanhBackwardOp {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    const T k = T(0.79788456080286535588), c = T(0.044715);
    const T th = ::tanh(k * (b + c * b * b * b));
    const T left = T(0.5) * (T(1) + th);
    const T right = T(0.5) * b * (T(1) - th * th) * k * (T(1) + T(3) * c * b * b);
    return a * (left + right);
  }
};
struct EqOp {
  template <typename T>
  EMBER_HD bool operator()(T a, T b, OpParams) const {
    return a == b;
  }
};
struct NeOp {
  template <typename T>
  EMBER_HD bool operator()(T a, T b, OpParams) const {
    return a != b;
  }
};
struct LtOp {
  template <typename T>
  EMBER_HD bool operator()(T a, T b, OpParams) const {
    return a < b;
  }
};
struct LeOp {
  template <typename T>
  EMBER_HD bool operator()(T a, T b, OpParams) const {
    return a <= b;
  }
};
struct GtOp {
  template <typename T>
  EMBER_HD bool operator()(T a, T b, OpParams) const {
    return a > b;
  }
};
struct GeOp {
  template <typename T>
  EMBER_HD bool operator()(T a, T b, OpParams) const {
    return a >= b;
  }
};
struct LogicalAndOp {
  template <typename T>
  EMBER_HD bool operator()(T a, T b, OpParams) const {
    return a && b;
  }
};
struct LogicalOrOp {
  template <typename T>
  EMBER_HD bool operator()(T a, T b, OpParams) const {
    return a || b;
  }
};

struct LogicalXorOp {
  template <typename T>
  EMBER_HD bool operator()(T a, T b, OpParams) const {
    return static_cast<bool>(a) != static_cast<bool>(b);
  }
};
struct Atan2Op {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    return ::atan2(a, b);
  }
};
struct HypotOp {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    return ::hypot(a, b);
  }
};

// Rounding divisions. Integer forms never trap: a zero divisor gives 0 (the front end reports it
// on the host, a device-side assert on CUDA), and MIN / -1 wraps instead of overflowing.
namespace fn {
template <typename T>
EMBER_HD_INLINE bool unsafe_int_divisor(T b) {
  if constexpr (std::is_signed_v<T>) {
    return b == T(0) || b == T(-1);
  } else {
    return b == T(0);
  }
}
// a / b for b in {0, -1}: 0 and -a (two's complement wrap-around).
template <typename T>
EMBER_HD_INLINE T int_div_edge(T a, T b) {
  if (b == T(0)) return T(0);
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(U(0) - static_cast<U>(a)));
}
}  // namespace fn

struct FmodOp {  // C's sign: the result has the dividend's sign
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    if constexpr (std::is_floating_point_v<T>) {
      return ::fmod(a, b);
    } else {
      return fn::unsafe_int_divisor(b) ? T(0) : static_cast<T>(a % b);
    }
  }
};
struct RemainderOp {  // Python's sign: the result has the divisor's sign
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams p) const {
    T r = FmodOp()(a, b, p);
    if constexpr (!std::is_unsigned_v<T>) {
      if (r != T(0) && ((r < T(0)) != (b < T(0)))) r = static_cast<T>(r + b);
    }
    return r;
  }
};
struct DivTruncOp {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    if constexpr (std::is_floating_point_v<T>) {
      return ::trunc(a / b);
    } else {
      return fn::unsafe_int_divisor(b) ? fn::int_div_edge(a, b) : static_cast<T>(a / b);
    }
  }
};
// floor(a / b) computed from fmod as PyTorch does, so that an inexact a / b cannot round across
// an integer; rounded to the nearest integer near x.5 cases, with zero's sign from a / b.
struct DivFloorOp {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (b == T(0)) return a / b;
      const T mod = ::fmod(a, b);
      T div = (a - mod) / b;
      if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
      if (div == T(0)) return ::copysign(T(0), a / b);
      T floored = ::floor(div);
      if (div - floored > T(0.5)) floored += T(1);
      return floored;
    } else {
      if (fn::unsafe_int_divisor(b)) return fn::int_div_edge(a, b);
      T q = static_cast<T>(a / b);
      if constexpr (std::is_signed_v<T>) {
        if (static_cast<T>(a % b) != T(0) && ((a < T(0)) != (b < T(0)))) q = static_cast<T>(q - 1);
      }
      return q;
    }
  }
};
struct BitwiseAndOp {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    return static_cast<T>(a & b);
  }
};
struct BitwiseOrOp {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    return static_cast<T>(a | b);
  }
};
struct BitwiseXorOp {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    return static_cast<T>(a ^ b);
  }
};
// Euclid's algorithm, then the magnitude (as PyTorch: gcd(0, 0) = 0; the front end sends
// integers only, bool is compiled for the Integral column).
struct GcdOp {
  template <typename T>
  EMBER_HD T operator()(T a, T b, OpParams) const {
    if constexpr (std::is_same_v<T, bool>) {
      return a || b;
    } else {
      while (b != T(0)) {
        T r = static_cast<T>(a % b);
        a = b;
        b = r;
      }
      if constexpr (std::is_signed_v<T>) {
        return static_cast<T>(a < T(0) ? -a : a);
      } else {
        return a;
      }
    }
  }
};

// Functors whose second operand divides integers: CUDA checks it for zero in the kernel.
template <typename Op>
inline constexpr bool kDividesIntegers =
    std::is_same_v<Op, FmodOp> || std::is_same_v<Op, RemainderOp> ||
    std::is_same_v<Op, DivTruncOp> || std::is_same_v<Op, DivFloorOp>;

// ---- reductions: identity() and combine(acc, x) ----
struct SumReduce {
  template <typename T>
  static EMBER_HD T identity() {
    return T(0);
  }
  template <typename T>
  EMBER_HD T operator()(T acc, T x) const {
    return acc + x;
  }
};
struct ProdReduce {
  template <typename T>
  static EMBER_HD T identity() {
    return T(1);
  }
  template <typename T>
  EMBER_HD T operator()(T acc, T x) const {
    return acc * x;
  }
};
struct MaxReduce {
  template <typename T>
  static EMBER_HD T identity() {
    if constexpr (std::is_floating_point_v<T>) {
      return -std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::lowest();
    }
  }
  template <typename T>
  EMBER_HD T operator()(T acc, T x) const {
    return MaximumOp()(acc, x, OpParams{});
  }
};
struct MinReduce {
  template <typename T>
  static EMBER_HD T identity() {
    if constexpr (std::is_floating_point_v<T>) {
      return std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::max();
    }
  }
  template <typename T>
  EMBER_HD T operator()(T acc, T x) const {
    return MinimumOp()(acc, x, OpParams{});
  }
};
struct AnyReduce {
  template <typename T>
  static EMBER_HD T identity() {
    return T(0);
  }
  template <typename T>
  EMBER_HD T operator()(T acc, T x) const {
    return static_cast<T>(acc || x);
  }
};
struct AllReduce {
  template <typename T>
  static EMBER_HD T identity() {
    return T(1);
  }
  template <typename T>
  EMBER_HD T operator()(T acc, T x) const {
    return static_cast<T>(acc && x);
  }
};

}  // namespace ember
