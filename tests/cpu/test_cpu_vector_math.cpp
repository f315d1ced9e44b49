// The CPU's vector math (src/cpu/vec_math.h) on every instruction set this machine has:
// - each function against a long double reference over a sweep of the whole float/double range
//   and a dense grid where the functions do their work, within SLEEF's 1-ULP bound for exp, log,
//   log1p and tanh, and within a bound derived from the formula for the activations built on them;
// - special values (±0, ±inf, NaN, subnormals, overflow and underflow thresholds) giving what the
//   scalar functors (kernel_math/functors.h) give;
// - softmax rows of lengths around the vector widths against long double, and rows with -inf
//   masks, very large negative inputs, NaN and +inf against the scalar row math;
// - the tensor ops that use them against PyTorch in float32, float64, float16 and bfloat16,
//   contiguous and strided.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cpu/vec_math.h"
#include "ember/autograd.h"
#include "ember/ember.h"
#include "ember/profiler.h"
#include "kernel_math/functors.h"
#include "kernel_math/softmax_row.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::cpu::CpuIsa;
using ember::cpu::VecMathKernels;
using ember::cpu::VecUnary;
using ember::testing::expect_close;
using ember::testing::torch_run;
using LD = long double;

namespace {

// The spacing of T's values at |x| (the subnormal spacing below the normal range).
template <typename T>
LD ulp_of(LD x) {
  int e = 0;
  std::frexp(std::fabs(x) > 0 ? x : LD(1), &e);
  e = std::max(e, std::numeric_limits<T>::min_exponent);
  return std::ldexp(LD(1), e - std::numeric_limits<T>::digits);
}

// Infinity counts as 2^max_exponent, the next power of two past the largest finite value, so an
// overflow to inf where the exact result just exceeds the range is a small error, as in SLEEF's
// own tests.
template <typename T>
LD finite_or_huge(LD v) {
  if (std::isinf(v))
    return std::copysign(std::ldexp(LD(1), std::numeric_limits<T>::max_exponent), v);
  return v;
}

constexpr LD kSqrt1_2 = 0.707106781186547524400844362104849039L;
constexpr LD kSqrt2OverPi = 0.797884560802865355879892119868763737L;

LD ref_sigmoid(LD x) {
  return 1 / (1 + std::exp(-x));
}
LD ref_silu(LD x) {
  return x / (1 + std::exp(-x));
}
LD ref_gelu(LD x) {
  return x * LD(0.5) * std::erfc(-x * kSqrt1_2);
}  // no cancellation
LD gelu_tanh_arg(LD x) {
  return kSqrt2OverPi * (x + LD(0.044715) * x * x * x);
}
LD ref_gelu_tanh(LD x) {  // 0.5 x (1 + tanh t) = x / (1 + exp(-2t)), without the cancellation
  return x / (1 + std::exp(-2 * gelu_tanh_arg(x)));
}

// The error a correctly working kernel may have at x beyond `ulps` ulps of the result, where the
// formula itself is ill-conditioned: double's gelu, x * 0.5 * (1 + erf(z)), loses the digits of
// erf(z) that 1 + erf(z) cancels (erf carries SLEEF's 1 ulp plus the rounding of z); the others
// below say why.
template <typename T>
LD formula_error(VecUnary op, LD x) {
  const LD eps = std::ldexp(LD(1), -std::numeric_limits<T>::digits);  // unit roundoff
  if (op == VecUnary::kGelu && sizeof(T) == 8) {  // float's kernel uses the erfc form
    const LD z = x * kSqrt1_2, f = std::erf(z);
    const LD df = 2 / std::sqrt(LD(M_PI)) * std::exp(-z * z);
    return LD(0.5) * std::fabs(x) * (ulp_of<T>(f) + ulp_of<T>(1 + f) + df * std::fabs(z) * 2 * eps);
  }
  if (op == VecUnary::kSigmoid || op == VecUnary::kSilu) {
    // exp(-x) overflows T before the result leaves T's range (x below about -88.7 in float): the
    // formula then gives 0 where a tiny (subnormal) result exists, as PyTorch's does.
    const bool overflows = -x > std::log(LD(std::numeric_limits<T>::max()));
    return overflows ? std::fabs(ref_sigmoid(x)) * std::max(LD(1), std::fabs(x)) : 0;
  }
  if (op == VecUnary::kGeluTanh) {
    // Computed as x / (1 + exp(-2t)): the roundings in t = sqrt(2/pi) (x + 0.044715 x^3) (five,
    // relative to its two terms) move the result by up to 2 sigmoid(-2t) |dt|, relatively. Where
    // exp(-2t) overflows T, the result may flush to 0 (as for silu).
    const LD t = gelu_tanh_arg(x), ref = ref_gelu_tanh(x);
    if (-2 * t > std::log(LD(std::numeric_limits<T>::max()))) return std::fabs(ref);
    const LD dt = 5 * eps * kSqrt2OverPi * (std::fabs(x) + LD(0.044715) * std::fabs(x * x * x));
    return std::fabs(ref) * 2 / (1 + std::exp(2 * t)) * dt;
  }
  return 0;
}

// SLEEF's bound is 1.0 ulp from the exact value; a result one step from a correctly rounded
// result that is itself a sliver from the exact value measures 1.00000001 (tanh of tiny x), and
// the long double reference is itself only 11 bits finer than double.
template <typename T>
constexpr double kSliver = sizeof(T) == 4 ? 1e-6 : 2e-3;

struct FnCase {
  const char* name;
  VecUnary op;
  LD (*ref)(LD);
  // The bound in ulps of the result, float and double: SLEEF's 1.0 for its own functions; for the
  // activations, 1 ulp of exp/erf/tanh carried through plus the roundings of the formula's own
  // operations; float's gelu: its erfc form's polynomial and roundings (vec_kernels.h).
  double ulps_f32, ulps_f64;
  template <typename T>
  double ulps() const {
    return sizeof(T) == 4 ? ulps_f32 : ulps_f64;
  }
};

const std::vector<FnCase>& fn_cases() {
  static const std::vector<FnCase> cases = {
      {"exp", VecUnary::kExp, [](LD x) { return std::exp(x); }, 1.0, 1.0},
      {"log", VecUnary::kLog, [](LD x) { return std::log(x); }, 1.0, 1.0},
      {"log1p", VecUnary::kLog1p, [](LD x) { return std::log1p(x); }, 1.0, 1.0},
      {"tanh", VecUnary::kTanh, [](LD x) { return std::tanh(x); }, 1.0, 1.0},
      {"sigmoid", VecUnary::kSigmoid, ref_sigmoid, 2.5, 2.5},
      {"silu", VecUnary::kSilu, ref_silu, 2.5, 2.5},
      {"gelu", VecUnary::kGelu, ref_gelu, 5.0, 2.5},
      {"gelu_tanh", VecUnary::kGeluTanh, ref_gelu_tanh, 3.0, 3.0},
      {"erf", VecUnary::kErf, [](LD x) { return std::erf(x); }, 1.0, 1.0},
  };
  return cases;
}

// The scalar functor of each op, the path a CPU without vector kernels (and the GPU) runs.
template <typename T>
T scalar_op(VecUnary op, T x) {
  const OpParams p{};
  switch (op) {
    case VecUnary::kExp:
      return ExpOp()(x, p);
    case VecUnary::kLog:
      return LogOp()(x, p);
    case VecUnary::kLog1p:
      return Log1pOp()(x, p);
    case VecUnary::kTanh:
      return TanhOp()(x, p);
    case VecUnary::kSigmoid:
      return SigmoidOp()(x, p);
    case VecUnary::kGelu:
      return GeluOp()(x, p);
    case VecUnary::kGeluTanh:
      return GeluTanhOp()(x, p);
    case VecUnary::kErf:
      return ErfOp()(x, p);
    default:
      return SiluOp()(x, p);
  }
}

// Every `stride`-th bit pattern of T's finite values, both signs, then a dense grid on [-lim, lim].
template <typename T>
std::vector<T> sweep_inputs() {
  std::vector<T> v;
  if constexpr (sizeof(T) == 4) {
    for (uint32_t b = 0; b < 0x7f800000u; b += 8191) {
      float f;
      std::memcpy(&f, &b, 4);
      v.push_back(f);
      v.push_back(-f);
    }
  } else {
    std::mt19937_64 gen(15);
    for (int i = 0; i < 200000; ++i) {
      const uint64_t b = gen() % 0x7ff0000000000000ull;
      double d;
      std::memcpy(&d, &b, 8);
      v.push_back(i % 2 ? d : -d);
    }
  }
  const int n = 200001;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<T>(-30.0 + 60.0 * i / (n - 1)));
  return v;
}

template <typename T>
std::vector<T> special_inputs() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0),
                      -T(0),
                      L::infinity(),
                      -L::infinity(),
                      L::quiet_NaN(),
                      -L::quiet_NaN(),
                      L::denorm_min(),
                      -L::denorm_min(),
                      L::min(),
                      -L::min(),
                      L::min() / 2,
                      -L::min() / 2,
                      L::max(),
                      -L::max(),
                      T(1),
                      T(-1),
                      T(1e-8),
                      T(-1e-8),
                      T(-1) + L::epsilon() / 2,
                      T(-1) - L::epsilon(),
                      T(0.5),
                      T(-0.5),
                      T(10),
                      T(-10),
                      T(50),
                      T(-50)};
  if constexpr (sizeof(T) == 4) {
    // expf: the last finite result, the first inf; the first subnormal result; the last nonzero.
    for (float f : {88.72283f, 88.72284f, -87.33654f, -87.33655f, -103.97207f, -103.97208f, -104.0f,
                    100.0f, -100.0f})
      v.push_back(f);
  } else {
    for (double d : {709.782712893384, 709.782712893385, -708.396418532264, -745.1332191019411,
                     -745.1332191019412, -746.0, 1000.0, -1000.0})
      v.push_back(d);
  }
  return v;
}

template <typename T>
std::vector<T> run_vec(const VecMathKernels& k, VecUnary op, const std::vector<T>& in) {
  std::vector<T> out(in.size());
  k.unary<T>(op)(out.data(), in.data(), static_cast<int64_t>(in.size()));
  return out;
}

// A softmax (or log_softmax) y of x against long double on the same inputs. `chain` bounds the
// longest run of additions one lane makes into the sum (its relative error is below chain * eps).
template <typename T>
::testing::AssertionResult softmax_matches_exact(const std::vector<T>& x, const std::vector<T>& y,
                                                 bool log_space, LD chain) {
  const LD eps = std::ldexp(LD(1), -std::numeric_limits<T>::digits);
  LD m = x[0], sum = 0;
  for (T v : x) m = std::max<LD>(m, v);
  for (T v : x) sum += std::exp(LD(v) - m);
  const LD sum_err = chain * eps;
  for (size_t i = 0; i < x.size(); ++i) {
    const LD d = LD(x[i]) - m;  // exact here; rounded once in T by the kernel
    const LD ref = log_space ? d - std::log(sum) : std::exp(d) / sum;
    if (std::isinf(ref)) {  // a masked entry of log_softmax
      if (LD(y[i]) != ref) return ::testing::AssertionFailure() << "[" << i << "] got " << y[i];
      continue;
    }
    const LD allowed = log_space
                           ? ulp_of<T>(d) + 2 * ulp_of<T>(std::log(sum)) + ulp_of<T>(ref) + sum_err
                           : ref * (sum_err + 0.5 * ulp_of<T>(d)) + 3 * ulp_of<T>(ref);
    if (!(std::fabs(LD(y[i]) - ref) <= allowed)) {
      return ::testing::AssertionFailure() << "[" << i << "] x=" << x[i] << " got " << y[i]
                                           << " exact " << static_cast<double>(ref);
    }
  }
  return ::testing::AssertionSuccess();
}

// The gradient gx of a softmax from its output y and incoming gradient g, against long double.
template <typename T>
::testing::AssertionResult softmax_grad_matches_exact(const std::vector<T>& g,
                                                      const std::vector<T>& y,
                                                      const std::vector<T>& gx, bool log_space,
                                                      LD chain) {
  const LD eps = std::ldexp(LD(1), -std::numeric_limits<T>::digits);
  LD dot = 0, mag = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const LD term = log_space ? LD(g[i]) : LD(g[i]) * y[i];
    dot += term;
    mag += std::fabs(term);
  }
  const LD dot_err = chain * eps * mag;
  for (size_t i = 0; i < g.size(); ++i) {
    const LD e = log_space ? std::exp(LD(y[i])) : 0;
    const LD ref = log_space ? g[i] - e * dot : y[i] * (g[i] - dot);
    const LD allowed =
        log_space ? e * (dot_err + 2 * ulp_of<T>(dot)) + 2 * ulp_of<T>(ref)
                  : std::fabs(LD(y[i])) * (dot_err + ulp_of<T>(g[i] - dot)) + ulp_of<T>(ref);
    if (!(std::fabs(LD(gx[i]) - ref) <= allowed)) {
      return ::testing::AssertionFailure()
             << "[" << i << "] got " << gx[i] << " exact " << static_cast<double>(ref);
    }
  }
  return ::testing::AssertionSuccess();
}

class VecMath : public ::testing::TestWithParam<CpuIsa> {
 protected:
  void SetUp() override {
    k_ = cpu::vec_math_for(GetParam());
    if (!k_) {
      GTEST_SKIP() << "no " << cpu::cpu_isa_name(GetParam())
                   << " kernels here (the CPU lacks the instructions, or Ember was built without "
                      "libsleef-dev)";
    }
    ASSERT_EQ(k_->isa, GetParam());
  }

  template <typename T>
  void check_ulps() {
    const std::vector<T> in = sweep_inputs<T>();
    for (const FnCase& c : fn_cases()) {
      const std::vector<T> got = run_vec<T>(*k_, c.op, in);
      // max ulps where the formula's own error term is below an ulp; max share of the bound used
      double worst = 0, worst_share = 0;
      T worst_at = 0;
      int64_t failures = 0;
      for (size_t i = 0; i < in.size(); ++i) {
        const LD ref = c.ref(static_cast<LD>(in[i]));
        if (std::isnan(ref)) {
          if (!std::isnan(got[i]) && failures++ < 5) {
            ADD_FAILURE() << c.name << "(" << in[i] << ") = " << got[i] << ", expected NaN";
          }
          continue;
        }
        const LD max = std::numeric_limits<T>::max();
        if (std::fabs(ref) >= max + ulp_of<T>(max) / 2) {  // rounds to infinity in T
          if (got[i] != std::copysign(std::numeric_limits<T>::infinity(), static_cast<T>(ref)) &&
              failures++ < 5) {
            ADD_FAILURE() << c.name << "(" << in[i] << ") = " << got[i] << ", expected inf";
          }
          continue;
        }
        const LD exact = ref;
        const LD err = std::fabs(finite_or_huge<T>(got[i]) - finite_or_huge<T>(ref));
        const LD cond = formula_error<T>(c.op, in[i]);
        const LD allowed = (c.ulps<T>() + kSliver<T>)*ulp_of<T>(exact) + cond;
        const double ulps = static_cast<double>(err / ulp_of<T>(exact));
        if (ulps > worst && cond < ulp_of<T>(exact)) worst = ulps, worst_at = in[i];
        worst_share = std::max(worst_share, static_cast<double>(err / allowed));
        if (!(err <= allowed) && failures++ < 5) {
          ADD_FAILURE() << c.name << "(" << in[i] << ") = " << got[i] << ", exact "
                        << static_cast<double>(ref) << ": " << ulps << " ulp, bound "
                        << c.ulps<T>();
        }
      }
      EXPECT_EQ(failures, 0) << c.name << ": " << failures << " of " << in.size()
                             << " inputs outside the bound";
      ::testing::Test::RecordProperty(
          std::string(c.name) + (sizeof(T) == 4 ? "_f32" : "_f64") + "_max_ulp",
          std::to_string(worst));
      std::printf("  %-9s %s max %.3g ulp (at %g) where well-conditioned, %.0f%% of the bound\n",
                  c.name, sizeof(T) == 4 ? "f32" : "f64", worst, static_cast<double>(worst_at),
                  100 * worst_share);
    }
  }

  template <typename T>
  void check_specials() {
    const std::vector<T> in = special_inputs<T>();
    for (const FnCase& c : fn_cases()) {
      const std::vector<T> got = run_vec<T>(*k_, c.op, in);
      for (size_t i = 0; i < in.size(); ++i) {
        const T want = scalar_op<T>(c.op, in[i]);
        const LD ref = c.ref(static_cast<LD>(in[i]));
        const std::string where = std::string(c.name) + "(" + std::to_string(in[i]) + ")";
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got[i])) << where << " = " << got[i] << ", scalar gives NaN";
        } else if (std::isinf(want) || ref == 0) {
          // Same infinity, same signed zero. (Where the scalar formula underflows to 0 but the
          // exact value does not, the vector result is held to the exact value below.)
          EXPECT_EQ(std::signbit(got[i]), std::signbit(want)) << where << " = " << got[i];
          EXPECT_EQ(got[i], want) << where;
        } else {
          EXPECT_LE(std::fabs(LD(got[i]) - ref),
                    (c.ulps<T>() + kSliver<T>)*ulp_of<T>(ref) + formula_error<T>(c.op, in[i]))
              << where << " = " << got[i] << ", exact " << static_cast<double>(ref);
        }
      }
    }
  }

  // Lengths that end on and around every vector width, a long row, and an odd long row.
  template <typename T>
  void check_softmax_rows() {
    std::mt19937 gen(7);
    std::normal_distribution<double> normal(0.0, 6.0);
    for (int64_t D :
         {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 100, 1024, 1031}) {
      std::vector<T> x(D), y(D);
      for (auto& v : x) v = static_cast<T>(normal(gen));
      for (bool log_space : {false, true}) {
        k_->softmax<T>()(y.data(), x.data(), D, log_space);
        // Partial sums over the lanes, then across them.
        ASSERT_TRUE(softmax_matches_exact(x, y, log_space, LD(D) / 4 + 8))
            << (log_space ? "log_softmax" : "softmax") << " D=" << D;
      }
    }
  }

  // The gradient rows from the forward kernel's own outputs, against long double on the same
  // values: softmax dx = y (dy - sum(dy y)), log_softmax dx = dy - exp(y) sum(dy); masked entries
  // (y = 0, or -inf in log space) get dx = 0 and dx = dy.
  template <typename T>
  void check_softmax_backward_rows() {
    std::mt19937 gen(9);
    std::normal_distribution<double> normal(0.0, 3.0);
    for (int64_t D : {1, 3, 7, 8, 9, 16, 17, 33, 100, 1031}) {
      std::vector<T> x(D), g(D), y(D), gx(D);
      for (auto& v : x) v = static_cast<T>(normal(gen));
      for (auto& v : g) v = static_cast<T>(normal(gen));
      const bool masked = D >= 3;
      if (masked) x[D / 2] = -std::numeric_limits<T>::infinity();
      for (bool log_space : {false, true}) {
        k_->softmax<T>()(y.data(), x.data(), D, log_space);
        k_->softmax_backward<T>()(gx.data(), g.data(), y.data(), D, log_space);
        ASSERT_TRUE(softmax_grad_matches_exact(g, y, gx, log_space, LD(D) / 4 + 8))
            << (log_space ? "log_softmax" : "softmax") << " backward D=" << D;
        if (masked) EXPECT_EQ(gx[D / 2], log_space ? g[D / 2] : T(0)) << "masked entry, D=" << D;
      }
    }
  }

  // A dim other than the last: blocks of `ncols` columns, D elements `stride` apart (stride >
  // ncols, as inside a larger slice), forward and backward, each column against long double; a
  // masked entry, an all-masked column (NaN) and a NaN column (NaN) among them.
  template <typename T>
  void check_softmax_columns() {
    std::mt19937 gen(11);
    std::normal_distribution<double> normal(0.0, 4.0);
    const T inf = std::numeric_limits<T>::infinity();
    for (auto [D, ncols] :
         {std::pair<int64_t, int64_t>{1, 5}, {3, 17}, {10, 16}, {33, 7}, {100, 40}, {7, 64}}) {
      const int64_t stride = ncols + 3;
      std::vector<T> x(D * stride), g(D * stride), y(D * stride), gx(D * stride);
      for (auto& v : x) v = static_cast<T>(normal(gen));
      for (auto& v : g) v = static_cast<T>(normal(gen));
      if (D >= 3) x[(D / 2) * stride + 1] = -inf;  // column 1: one masked entry
      for (int64_t d = 0; d < D; ++d) x[d * stride + 2 % ncols] = -inf;  // column 2: all masked
      x[(D - 1) * stride + 3 % ncols] = std::numeric_limits<T>::quiet_NaN();  // column 3: NaN
      for (bool log_space : {false, true}) {
        k_->softmax_cols<T>()(y.data(), x.data(), D, stride, ncols, log_space);
        k_->softmax_backward_cols<T>()(gx.data(), g.data(), y.data(), D, stride, ncols, log_space);
        for (int64_t j = 0; j < ncols; ++j) {
          std::vector<T> xc(D), yc(D), gc(D), gxc(D);
          for (int64_t d = 0; d < D; ++d) {
            xc[d] = x[d * stride + j], yc[d] = y[d * stride + j];
            gc[d] = g[d * stride + j], gxc[d] = gx[d * stride + j];
          }
          const std::string where = std::string(log_space ? "log_softmax" : "softmax") +
                                    " D=" + std::to_string(D) + " column " + std::to_string(j);
          const bool nan_column = j == 2 % ncols || j == 3 % ncols;
          if (nan_column) {
            for (int64_t d = 0; d < D; ++d) ASSERT_TRUE(std::isnan(yc[d])) << where;
            continue;
          }
          ASSERT_TRUE(softmax_matches_exact(xc, yc, log_space, LD(D) + 8)) << where;
          ASSERT_TRUE(softmax_grad_matches_exact(gc, yc, gxc, log_space, LD(D) + 8))
              << where << " backward";
        }
      }
    }
  }

  // Rows the scalar row math decides: masks, overflow-prone and NaN-carrying rows. Each vector
  // result has the scalar one's NaNs, infinities and zeros, and its values within a few ulps.
  template <typename T>
  void check_softmax_special_rows() {
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    const T big = std::numeric_limits<T>::max(), tiny = std::numeric_limits<T>::denorm_min();
    std::vector<std::vector<T>> rows = {
        {-inf, T(1), T(2), -inf, T(0), T(3), -inf, -inf, T(1), T(2), T(3), T(4), -inf, T(0), T(1),
         T(2), T(-1), -inf, T(5)},                           // a -inf mask across a vector boundary
        std::vector<T>(21, -inf),                            // all masked: NaN, as in PyTorch
        {-big, T(0), -big, T(-1e30), T(-3e30)},              // very large negative inputs
        {-big, -big, -big},                                  // all equal and huge
        {big, -big, T(0)},                                   // x - max overflows to -inf
        {T(-1e4), T(-1e4) + 1, T(-1e4) - 1, T(-2e4)},        // far below zero
        {tiny, -tiny, T(0), std::numeric_limits<T>::min()},  // subnormals
        {T(1), nan, T(2), T(3), T(4), T(5), T(6), T(7), T(8), T(9), T(10), T(11), T(12), T(13),
         T(14), T(15), T(16), T(17)},  // NaN: the whole row is NaN
        {inf, T(0), T(1)},             // +inf: NaN row (inf - inf)
        {-inf, inf, T(1)},
    };
    for (const auto& x : rows) {
      const int64_t D = static_cast<int64_t>(x.size());
      for (bool log_space : {false, true}) {
        std::vector<T> got(D), want(D);
        k_->softmax<T>()(got.data(), x.data(), D, log_space);
        softmax_row<T, T>(want.data(), x.data(), D, 1, log_space);
        for (int64_t i = 0; i < D; ++i) {
          const std::string where = std::string(log_space ? "log_softmax" : "softmax") + " row " +
                                    std::to_string(&x - rows.data()) + " [" + std::to_string(i) +
                                    "]";
          if (std::isnan(want[i]) || std::isinf(want[i]) || want[i] == 0) {
            EXPECT_EQ(std::isnan(got[i]), std::isnan(want[i])) << where << ": " << got[i];
            if (!std::isnan(want[i])) EXPECT_EQ(got[i], want[i]) << where;
          } else {
            EXPECT_NEAR(got[i], want[i], 4 * ulp_of<T>(want[i])) << where;
          }
        }
      }
    }
  }

  const VecMathKernels* k_ = nullptr;
};

TEST_P(VecMath, FloatWithinUlpBoundsOverTheWholeRange) {
  check_ulps<float>();
}
TEST_P(VecMath, DoubleWithinUlpBoundsOverTheWholeRange) {
  check_ulps<double>();
}
TEST_P(VecMath, FloatSpecialValuesAsScalar) {
  check_specials<float>();
}
TEST_P(VecMath, DoubleSpecialValuesAsScalar) {
  check_specials<double>();
}
TEST_P(VecMath, FloatSoftmaxRows) {
  check_softmax_rows<float>();
}
TEST_P(VecMath, DoubleSoftmaxRows) {
  check_softmax_rows<double>();
}
TEST_P(VecMath, FloatSoftmaxMasksAndExtremes) {
  check_softmax_special_rows<float>();
}
TEST_P(VecMath, FloatSoftmaxBackwardRows) {
  check_softmax_backward_rows<float>();
}
TEST_P(VecMath, DoubleSoftmaxBackwardRows) {
  check_softmax_backward_rows<double>();
}
TEST_P(VecMath, FloatSoftmaxColumns) {
  check_softmax_columns<float>();
}
TEST_P(VecMath, DoubleSoftmaxColumns) {
  check_softmax_columns<double>();
}
TEST_P(VecMath, DoubleSoftmaxMasksAndExtremes) {
  check_softmax_special_rows<double>();
}

TEST_P(VecMath, InPlaceAndEveryLengthAgree) {
  // out == in, and every length up to three registers (the masked tail on its own and after
  // whole registers) gives the same values as one long call.
  std::vector<float> x(53);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.37f - 9.0f;
  for (const FnCase& c : fn_cases()) {
    const std::vector<float> all = run_vec<float>(*k_, c.op, x);
    for (int64_t n = 1; n <= static_cast<int64_t>(x.size()); ++n) {
      std::vector<float> part(x.begin(), x.begin() + n);
      k_->unary<float>(c.op)(part.data(), part.data(), n);
      // Bit for bit (NaNs included).
      ASSERT_EQ(std::memcmp(part.data(), all.data(), n * sizeof(float)), 0) << c.name << " n=" << n;
    }
  }
}

// gelu's gradients (binary kernels, out = g * gelu'(x)) against long double on the sweep: within
// a few ulps of the two terms of gelu' (Phi(x) and x phi(x), or s and the tanh form's slope term),
// which cancel near x = -0.75, so the terms' size bounds the error there; the tanh form also
// carries the roundings of t (as gelu_tanh's bound says). The specials (inf, NaN) agree with the
// scalar functor, PyTorch's formula; every length agrees with one long call.
template <typename T>
void check_gelu_gradients(const VecMathKernels& k) {
  const LD eps = std::ldexp(LD(1), -std::numeric_limits<T>::digits);
  std::vector<T> x;
  for (T v : sweep_inputs<T>()) {
    if (std::fabs(v) <= T(40)) x.push_back(v);  // beyond, both terms are exactly 0 or 1
  }
  for (T v : special_inputs<T>()) x.push_back(v);
  std::vector<T> g(x.size());
  for (size_t i = 0; i < g.size(); ++i) g[i] = i % 3 == 0 ? T(1) : i % 3 == 1 ? T(-0.75) : T(3);
  for (bool tanh_form : {false, true}) {
    const auto op = tanh_form ? cpu::VecBinary::kGeluTanhBackward : cpu::VecBinary::kGeluBackward;
    std::vector<T> out(x.size());
    k.binary<T>(op)(out.data(), g.data(), x.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      const LD xv = x[i], gv = g[i];
      const std::string ctx = std::string(tanh_form ? "gelu_tanh'" : "gelu'") +
                              " x=" + std::to_string(static_cast<double>(xv));
      // The tanh form's x^3 overflows for the largest finite x: inf * 0 there, NaN as PyTorch's.
      const bool cube_overflows =
          tanh_form && std::fabs(xv * xv * xv) > std::numeric_limits<T>::max();
      if (!std::isfinite(xv) || cube_overflows) {
        const T scalar = tanh_form ? GeluTanhBackwardOp()(g[i], x[i], OpParams{})
                                   : GeluBackwardOp()(g[i], x[i], OpParams{});
        EXPECT_EQ(std::isnan(out[i]), std::isnan(scalar)) << ctx;
        if (!std::isnan(scalar)) EXPECT_EQ(out[i], scalar) << ctx;
        continue;
      }
      LD first, second, allowed;
      if (tanh_form) {
        const LD t = gelu_tanh_arg(xv), s = 1 / (1 + std::exp(-2 * t));
        first = s;
        second = 2 * xv * s * (1 - s) * kSqrt2OverPi * (1 + 3 * LD(0.044715) * xv * xv);
        const LD dt =
            5 * eps * kSqrt2OverPi * (std::fabs(xv) + LD(0.044715) * std::fabs(xv * xv * xv));
        allowed = 8 * (ulp_of<T>(first) + ulp_of<T>(second)) + 4 * (first + std::fabs(second)) * dt;
        // Where exp(-2t) overflows T the result flushes to 0 (as gelu_tanh's does).
        if (-2 * t > std::log(LD(std::numeric_limits<T>::max())))
          allowed += first + std::fabs(second);
      } else {
        first = LD(0.5) * std::erfc(-xv * kSqrt1_2);
        second = xv * std::exp(-xv * xv / 2) / std::sqrt(2 * LD(M_PI));
        // float: the erfc form's few ulps; double: the functor's 1 + erf(z), which cancels to an
        // error of a few ulps of 1 in the negative tail.
        allowed = 8 * (ulp_of<T>(first) + ulp_of<T>(second)) + (sizeof(T) == 8 ? 4 * eps : 0);
      }
      const LD ref = gv * (first + second);
      allowed = std::fabs(gv) * allowed + ulp_of<T>(ref);
      ASSERT_LE(std::fabs(LD(out[i]) - ref), allowed)
          << ctx << " got " << out[i] << " exact " << static_cast<double>(ref);
    }
    // Every length (the masked tail on its own and after whole registers), and out == g.
    for (int64_t n = 1; n <= 53; ++n) {
      std::vector<T> part(g.begin(), g.begin() + n);
      k.binary<T>(op)(part.data(), part.data(), x.data(), n);
      ASSERT_EQ(std::memcmp(part.data(), out.data(), n * sizeof(T)), 0) << "n=" << n;
    }
  }
}

TEST_P(VecMath, FloatGeluGradients) {
  check_gelu_gradients<float>(*k_);
}
TEST_P(VecMath, DoubleGeluGradients) {
  check_gelu_gradients<double>(*k_);
}

INSTANTIATE_TEST_SUITE_P(Isa, VecMath, ::testing::Values(CpuIsa::kAvx2, CpuIsa::kAvx512),
                         [](const auto& info) {
                           return std::string(cpu::cpu_isa_name(info.param));
                         });

TEST(VecMathDispatch, ChoosesTheWidestAvailable) {
  const VecMathKernels* k = cpu::vec_math();
  if (!k) GTEST_SKIP() << "scalar path: no vector kernels on this CPU or build";
  std::printf("  vector math: %s\n", cpu::cpu_isa_name(k->isa));
  ::testing::Test::RecordProperty("cpu_capability", cpu::cpu_isa_name(k->isa));
  // Without EMBER_CPU_CAPABILITY, nothing wider than the chosen set is available.
  if (!std::getenv("EMBER_CPU_CAPABILITY") && k->isa == CpuIsa::kAvx2) {
    EXPECT_EQ(cpu::vec_math_for(CpuIsa::kAvx512), nullptr);
  }
  EXPECT_EQ(cpu::vec_math_for(k->isa), k);
}

// ---- the tensor ops that use the kernels, against PyTorch ----

struct OpCase {
  const char* name;
  Tensor (*fn)(const Tensor&);
  const char* torch;  // over x, computed in x's dtype (16-bit: in float, rounded once)
  double rtol32, atol32;
};

const std::vector<OpCase>& op_cases() {
  static const std::vector<OpCase> cases = {
      {"exp", [](const Tensor& x) { return ember::exp(x); }, "torch.exp(x)", 4e-7, 0},
      {"log", [](const Tensor& x) { return ember::log(x); }, "torch.log(x)", 4e-7, 0},
      {"log1p", [](const Tensor& x) { return ember::log1p(x); }, "torch.log1p(x)", 4e-7, 0},
      {"tanh", [](const Tensor& x) { return ember::tanh(x); }, "torch.tanh(x)", 4e-7, 0},
      {"sigmoid", [](const Tensor& x) { return ember::sigmoid(x); }, "torch.sigmoid(x)", 6e-7, 0},
      {"silu", [](const Tensor& x) { return ember::silu(x); }, "F.silu(x)", 6e-7, 0},
      // PyTorch's own float erf (not SLEEF's) is good to about 1.5e-7 absolute.
      {"gelu", [](const Tensor& x) { return ember::gelu(x); }, "F.gelu(x)", 6e-7, 1e-6},
      {"gelu_tanh", [](const Tensor& x) { return ember::gelu(x, "tanh"); },
       "F.gelu(x, approximate='tanh')", 6e-7, 2e-7},
  };
  return cases;
}

// 2000 values over [-12, 12] and the special ones, as float64.
Tensor op_inputs() {
  std::vector<double> v;
  for (int i = 0; i < 2000; ++i) v.push_back(-12.0 + 24.0 * i / 1999.0);
  const double inf = std::numeric_limits<double>::infinity();
  for (double s : {0.0, -0.0, inf, -inf, std::nan(""), 1e-40, -1e-40, 1e-300, 100.0, -100.0, -1.0,
                   -0.9999999, 88.0, -88.0, 700.0, -700.0, 1e30, -1e30})
    v.push_back(s);
  return tensor(v, kDouble);
}

TEST(VecMathOps, MatchPyTorchInEveryFloatDtype) {
  const Tensor x64 = op_inputs();
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    const Tensor x = x64.to(dt);
    const bool narrow = dt == kHalf || dt == kBFloat16;
    for (const OpCase& c : op_cases()) {
      const std::string ctx = std::string(c.name) + " " + to_string(dt);
      // 16-bit: PyTorch's float result rounded once, which is what Ember computes.
      auto r = torch_run(
          narrow ? "dt = x.dtype\nx = x.float()\ny = (" + std::string(c.torch) + ").to(dt)"
                 : "y = " + std::string(c.torch),
          {{"x", x}});
      const Tensor y = c.fn(x);
      ASSERT_EQ(y.dtype(), dt) << ctx;
      double rtol = c.rtol32, atol = c.atol32;
      if (dt == kDouble) rtol = 1e-14, atol = c.atol32 ? 1e-15 : 0;
      // One rounding apart at most (gelu: PyTorch's erf error, as in float).
      if (dt == kHalf) rtol = 0x1p-10, atol = std::max(1e-7, c.atol32);
      if (dt == kBFloat16) rtol = 0x1p-7, atol = std::max(1e-7, c.atol32);
      expect_close(y, r.at("y"), rtol, atol, ctx);
      // A strided layout goes through the same kernels: bit-identical.
      const Tensor xs = x.reshape({-1, 2}).t();
      expect_close(c.fn(xs), c.fn(xs.contiguous()), 0, 0, ctx + " strided");
    }
  }
}

// gelu's gradient (ember::gelu_backward in the profiler, the backend's GeluBackward kernel) against
// PyTorch's in every float dtype, strided inputs included, and a create_graph backward (composed
// of differentiable ops) giving the same first derivative and PyTorch's second.
TEST(VecMathOps, GeluGradientsMatchPyTorchInEveryFloatDtype) {
  const Tensor x64 = op_inputs();
  const Tensor g64 = ember::linspace(-2.0, 3.0, x64.numel(), kDouble);
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    for (const char* approx : {"none", "tanh"}) {
      const std::string ctx = std::string(approx) + " " + to_string(dt);
      const Tensor x = x64.to(dt), g = g64.to(dt);
      const bool narrow = dt == kHalf || dt == kBFloat16;
      auto r = torch_run(std::string(narrow ? "dt = x.dtype\nx = x.float()\ng = g.float()\n" : "") +
                             "x.requires_grad_(True)\n"
                             "F.gelu(x, approximate='" +
                             approx +
                             "').backward(g)\n"
                             "gx = x.grad" +
                             (narrow ? ".to(dt)" : ""),
                         {{"x", x}, {"g", g}}, {"gx"});
      Tensor xe = x.clone().requires_grad_(true);
      ember::gelu(xe, approx).backward(g);
      double rtol = 2e-6, atol = 2e-6;  // PyTorch's float erf is good to about 1.5e-7
      // double: gelu' is O(1), and PyTorch's 1 + tanh(t) and 1 - tanh^2 cancel to 0 in the tail
      // where the exact value is 1e-15.
      if (dt == kDouble) rtol = 1e-13, atol = 1e-14;
      if (dt == kHalf) rtol = 0x1p-10, atol = 1e-6;
      if (dt == kBFloat16) rtol = 0x1p-7, atol = 1e-6;
      expect_close(xe.grad(), r.at("gx"), rtol, atol, ctx);
      // Strided: the same kernel through its buffers, bit for bit.
      Tensor xs = x.reshape({-1, 2}).t().detach().requires_grad_(true);
      ember::gelu(xs, approx).backward(g.reshape({-1, 2}).t());
      expect_close(xs.grad().t().reshape({-1}), xe.grad(), 0, 0, ctx + " strided");
    }
  }
  // create_graph: the composed derivative, and second derivatives as PyTorch's.
  const Tensor x = ember::linspace(-4.0, 4.0, 41, kDouble);
  for (const char* approx : {"none", "tanh"}) {
    auto r = torch_run(std::string("x.requires_grad_(True)\n") +
                           "d, = torch.autograd.grad(F.gelu(x, approximate='" + approx +
                           "').sum(), x, create_graph=True)\n"
                           "h, = torch.autograd.grad(d.sum(), x)",
                       {{"x", x}}, {"d", "h"});
    Tensor xe = x.clone().requires_grad_(true);
    const auto d = autograd::grad({ember::gelu(xe, approx).sum()}, {xe}, {}, std::nullopt, true);
    expect_close(d[0].detach(), r.at("d"), 1e-12, 1e-14, std::string(approx) + " d");
    const auto h = autograd::grad({d[0].sum()}, {xe});
    expect_close(h[0], r.at("h"), 1e-12, 1e-14, std::string(approx) + " h");
  }
}

// The gradient is one ember::gelu_backward call (PyTorch's aten::gelu_backward), not a composition.
TEST(VecMathOps, GeluBackwardIsOneKernel) {
  Tensor x = ember::linspace(-3.0, 3.0, 64).requires_grad_(true);
  profiler::profile prof;
  ember::gelu(x).sum().backward();
  prof.stop();
  size_t fused = 0, erf = 0;
  for (const auto& e : prof.events()) {
    fused += e.name == "ember::gelu_backward";
    erf += e.name == "ember::erf";
  }
  EXPECT_EQ(fused, 1u);
  EXPECT_EQ(erf, 0u);
}

TEST(VecMathOps, SoftmaxRowsMatchPyTorch) {
  // Long rows with -inf masks and very negative entries, short rows (the 128x10 of the benches),
  // an all-masked row; in every float dtype.
  manual_seed(42);
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{37, 1031}, std::vector<int64_t>{128, 10}}) {
    Tensor x = randn(shape, kDouble) * 5;
    Tensor mask = rand(shape, kDouble) < 0.2;
    x = where(mask, full(shape, -std::numeric_limits<double>::infinity(), kDouble), x);
    x.select(0, 3).fill_(-std::numeric_limits<double>::infinity());
    x.select(0, 4).slice(0, 0, 5).fill_(-1e30);
    for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
      const Tensor xd = x.to(dt);
      const bool narrow = dt == kHalf || dt == kBFloat16;
      auto r = narrow ? torch_run(
                            "y = torch.softmax(x.float(), -1).to(x.dtype)\n"
                            "z = torch.log_softmax(x.float(), -1).to(x.dtype)",
                            {{"x", xd}}, {"y", "z"})
                      : torch_run("y = torch.softmax(x, -1)\nz = torch.log_softmax(x, -1)",
                                  {{"x", xd}}, {"y", "z"});
      const double rtol = dt == kDouble ? 1e-13 : dt == kFloat ? 2e-6 : narrow ? 0x1p-7 : 0;
      const double atol = dt == kDouble ? 1e-15 : 1e-7;
      const std::string ctx = std::string(to_string(dt)) + " " + std::to_string(shape[1]);
      expect_close(softmax(xd, -1), r.at("y"), rtol, atol, "softmax " + ctx);
      // log_softmax: absolute error follows log(sum), a few units of its last place.
      expect_close(log_softmax(xd, -1), r.at("z"), rtol, dt == kDouble ? 1e-13 : 4e-6,
                   "log_softmax " + ctx);
    }
    // Gradients in float32 and float64 (the rows of the all-masked row are NaN in both).
    for (ScalarType dt : {kFloat, kDouble}) {
      const Tensor g = randn(shape, dt);
      for (bool log_space : {false, true}) {
        Tensor xd = x.to(dt).detach().clone().requires_grad_();
        (log_space ? log_softmax(xd, -1) : softmax(xd, -1)).backward(g);
        const std::string fn = log_space ? "torch.log_softmax" : "torch.softmax";
        auto r = torch_run("x.requires_grad_()\n" + fn + "(x, -1).backward(g)\ny = x.grad",
                           {{"x", x.to(dt)}, {"g", g}});
        // log_softmax: dy - exp(y) sum(dy), where sum(dy) over 1031 normal values is ~30 and
        // carries the rounding of its own order of summation.
        const double tol = dt == kDouble ? 1e-13 : 2e-5;
        expect_close(xd.grad(), r.at("y"), tol, tol,
                     fn + " backward " + to_string(dt) + " " + std::to_string(shape[1]));
      }
    }
  }
}

TEST(VecMathOps, SoftmaxOverOtherDimsMatchesPyTorch) {
  // dim 1 of [3, 37, 70] (70 columns: a block of 64 and one of 6) and dim 0 of [20, 9], with -inf
  // masks, in every float dtype, and the gradients in float32/float64.
  manual_seed(43);
  for (auto [shape, dim] :
       {std::pair<std::vector<int64_t>, int64_t>{{3, 37, 70}, 1}, {{20, 9}, 0}}) {
    Tensor x = randn(shape, kDouble) * 4;
    x = where(rand(shape, kDouble) < 0.2,
              full(shape, -std::numeric_limits<double>::infinity(), kDouble), x);
    const std::string d = std::to_string(dim);
    for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
      const Tensor xd = x.to(dt);
      const bool narrow = dt == kHalf || dt == kBFloat16;
      auto r =
          narrow ? torch_run("y = torch.softmax(x.float(), " + d +
                                 ").to(x.dtype)\n"
                                 "z = torch.log_softmax(x.float(), " +
                                 d + ").to(x.dtype)",
                             {{"x", xd}}, {"y", "z"})
                 : torch_run("y = torch.softmax(x, " + d + ")\nz = torch.log_softmax(x, " + d + ")",
                             {{"x", xd}}, {"y", "z"});
      const double rtol = dt == kDouble ? 1e-13 : dt == kFloat ? 2e-6 : 0x1p-7;
      const std::string ctx = std::string(to_string(dt)) + " dim " + d;
      expect_close(softmax(xd, dim), r.at("y"), rtol, dt == kDouble ? 1e-15 : 1e-7,
                   "softmax " + ctx);
      expect_close(log_softmax(xd, dim), r.at("z"), rtol, dt == kDouble ? 1e-13 : 4e-6,
                   "log_softmax " + ctx);
    }
    for (ScalarType dt : {kFloat, kDouble}) {
      const Tensor g = randn(shape, dt);
      for (bool log_space : {false, true}) {
        Tensor xd = x.to(dt).detach().clone().requires_grad_();
        (log_space ? log_softmax(xd, dim) : softmax(xd, dim)).backward(g);
        const std::string fn = log_space ? "torch.log_softmax" : "torch.softmax";
        auto r = torch_run("x.requires_grad_()\n" + fn + "(x, " + d + ").backward(g)\ny = x.grad",
                           {{"x", x.to(dt)}, {"g", g}});
        const double tol = dt == kDouble ? 1e-13 : 2e-5;
        expect_close(xd.grad(), r.at("y"), tol, tol,
                     fn + " backward " + to_string(dt) + " dim " + d);
      }
    }
  }
}

}  // namespace
