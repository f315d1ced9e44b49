#pragma once
// The vector kernels of src/cpu/vec_math.h, written once over a vector type V and compiled once per
// instruction set (avx2.cpp, avx512.cpp, each with its own -m flags). V supplies, for one register
// of W lanes of T: load/store, load_n/store_n (the first n lanes, the rest of a load filled with a
// value), set1, arithmetic, max (the second operand where either is NaN), reduce_add/reduce_max
// and SLEEF's exp/log/log1p/tanh/erf; for float also fmadd a*b+c, fmsub a*b-c, fnmadd c-a*b, abs,
// min, select_nonpositive(x, a, b) (a where x <= 0, else b), round (to nearest integer) and
// scale(u, q) = u * 2^q, which gelu_f32 uses.
//
// Only this header, <immintrin.h> and <sleef.h> may be included next to it: any inline function
// of another header would be compiled with the ISA's flags and could be the copy the linker keeps
// for the whole library, which would then fault on an older CPU. Every instantiation here takes an
// internal-linkage V, so it stays private to its file.
#include <math.h>

#include <cstdint>

#include "cpu/vec_math.h"

namespace ember::cpu::simd {

// out[i] = f(in[i]) over n elements; f maps a register to a register.
template <class V, class F>
inline void map(typename V::T* out, const typename V::T* in, int64_t n, F f) {
  constexpr int W = V::W;
  int64_t i = 0;
  // Two registers per step: SLEEF's functions are calls, and two independent ones overlap.
  for (; i + 2 * W <= n; i += 2 * W) {
    const typename V::R a = f(V::load(in + i)), b = f(V::load(in + i + W));
    V::store(out + i, a);
    V::store(out + i + W, b);
  }
  for (; i + W <= n; i += W) V::store(out + i, f(V::load(in + i)));
  if (i < n) V::store_n(out + i, f(V::load_n(in + i, n - i, typename V::T(0))), n - i);
}

// out[i] = f(a[i], b[i]) over n elements, as map.
template <class V, class F>
inline void map2(typename V::T* out, const typename V::T* a, const typename V::T* b, int64_t n,
                 F f) {
  constexpr int W = V::W;
  using T = typename V::T;
  int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    const typename V::R r0 = f(V::load(a + i), V::load(b + i));
    const typename V::R r1 = f(V::load(a + i + W), V::load(b + i + W));
    V::store(out + i, r0);
    V::store(out + i + W, r1);
  }
  for (; i + W <= n; i += W) V::store(out + i, f(V::load(a + i), V::load(b + i)));
  if (i < n)
    V::store_n(out + i, f(V::load_n(a + i, n - i, T(0)), V::load_n(b + i, n - i, T(0))), n - i);
}

// Each op computes its functor's formula (kernel_math/functors.h) in the same order.
template <class V>
struct Ops {
  using T = typename V::T;
  using R = typename V::R;

  static void exp(T* out, const T* in, int64_t n) {
    map<V>(out, in, n, [](R x) { return V::exp(x); });
  }
  static void log(T* out, const T* in, int64_t n) {
    map<V>(out, in, n, [](R x) { return V::log(x); });
  }
  static void log1p(T* out, const T* in, int64_t n) {
    map<V>(out, in, n, [](R x) { return V::log1p(x); });
  }
  static void tanh(T* out, const T* in, int64_t n) {
    map<V>(out, in, n, [](R x) { return V::tanh(x); });
  }
  static void erf(T* out, const T* in, int64_t n) {  // GELU's gradient
    map<V>(out, in, n, [](R x) { return V::erf(x); });
  }

  static void sigmoid(T* out, const T* in, int64_t n) {  // 1 / (1 + exp(-x))
    const R one = V::set1(T(1));
    map<V>(out, in, n, [&](R x) { return V::div(one, V::add(one, V::exp(V::neg(x)))); });
  }
  static void silu(T* out, const T* in, int64_t n) {  // x / (1 + exp(-x))
    const R one = V::set1(T(1));
    map<V>(out, in, n, [&](R x) { return V::div(x, V::add(one, V::exp(V::neg(x)))); });
  }
  static void gelu(T* out, const T* in, int64_t n) {
    if constexpr (sizeof(T) == 4) {
      map<V>(out, in, n, [](R x) { return gelu_f32(x); });
    } else {  // x * 0.5 * (1 + erf(x / sqrt(2))), the functor's formula, with SLEEF's erf
      const R one = V::set1(T(1)), half = V::set1(T(0.5));
      const R rsqrt2 = V::set1(T(0.70710678118654752440));
      map<V>(out, in, n,
             [&](R x) { return V::mul(V::mul(x, half), V::add(one, V::erf(V::mul(x, rsqrt2)))); });
    }
  }
  // GELU in float, x * Phi(x) with Phi(x) = erfc(-x / sqrt(2)) / 2, in the erfc form, which keeps
  // the digits of the negative tail that x * 0.5 * (1 + erf(x / sqrt(2))) cancels away (all of them
  // below x = -5.5, where the formula gives 0 or a multiple of 2^-25 * x):
  //   t = x Phi(-|x|) = x / (w + 3) * G(q) / 2 * exp(-x^2 / 2)
  //   w = |x| / sqrt(2),  q = (w - 3) / (w + 3)
  //   gelu(x) = x <= 0 ? t : x - t   (x <= 0 keeps -0's sign)
  // G(q) = erfcx(w) * (w + 3) lies in [0.56, 3] (well conditioned, unlike erfcx(w) itself, whose
  // polynomial in q loses 5 ulp to its own roundings near w = 10); its degree-9 polynomial was
  // fitted with mpmath, `chebyfit(G, [-1, 8/14], 10)`, to 8e-9 relative on w in [0, 11].
  // The kernel is bound by its multiply-adds (Zen 4 runs each 512-bit one as two halves), so the
  // divider, a separate unit, takes both quotients, and exp(-x^2 / 2) reduces x^2 itself (below).
  // Within 5 ulp over the whole range (tests/cpu/test_cpu_vector_math.cpp); SLEEF's 1-ulp erf in
  // the functor's formula costs five times as much as this whole function, and PyTorch's own erf
  // (1.5e-7 absolute) is as inexact as the formula in the tail.
  static R gelu_f32(R x) {
    // Beyond |x| = 15, Phi(-|x|) is below the smallest float: the product is 0. The clamps also
    // keep inf out of q and of x / (w + 3) (+inf gives inf - 0; -inf gives -inf * 0 = NaN, as the
    // functor); NaN becomes 15 in both and stays NaN through x - that.
    const R fifteen = V::set1(15.0f);
    const R ax = V::min(V::abs(x), fifteen);
    const R e = exp_minus_half_square(ax);
    const R w_plus_3 = V::fmadd(ax, V::set1(0.70710678118654752440f), V::set1(3.0f));
    const R g = half_g(ax, w_plus_3);
    const R x_over = V::div(V::min(x, fifteen), w_plus_3);
    // e last, so a subnormal e costs the product no more than its own rounding.
    const R x_phi_neg = V::mul(V::mul(x_over, g), e);
    return V::select_nonpositive(x, x_phi_neg, V::sub(x, x_phi_neg));
  }

  // G(q) / 2 of gelu_f32's erfc form for a = |x| (clamped to 15) and w + 3 = a / sqrt(2) + 3.
  static R half_g(R ax, R w_plus_3) {
    // G(q) / 2, highest power first.
    static constexpr float kHalfG[] = {-1.659314148e-04f, -2.468142193e-04f, 1.541085425e-03f,
                                       -6.089743110e-04f, -1.341939718e-02f, 5.976345390e-02f,
                                       -1.552331746e-01f, 2.951142490e-01f,  -4.416972399e-01f,
                                       5.370034575e-01f};
    const R q = V::div(V::fmsub(ax, V::set1(0.70710678118654752440f), V::set1(3.0f)), w_plus_3);
    R g = V::set1(kHalfG[0]);
    for (int i = 1; i < 10; ++i) g = V::fmadd(g, q, V::set1(kHalfG[i]));
    return g;
  }

  // gelu's gradient, grad * (Phi(x) + x phi(x)). In float, Phi(-|x|) comes from gelu_f32's erfc
  // form (Phi(x) = 1 - Phi(-x) above 0), which keeps its digits in the negative tail, and
  // phi(x) = exp(-x^2 / 2) / sqrt(2 pi) from the same exponential. x itself (not clamped)
  // multiplies that exponential, so an infinite x gives inf * 0 = NaN as the functor (PyTorch's
  // formula) does; double runs the functor's formula with SLEEF's erf and exp.
  static void gelu_backward(T* out, const T* grad, const T* in, int64_t n) {
    const R one = V::set1(T(1));
    const R inv_sqrt_2pi = V::set1(T(0.39894228040143267794));
    if constexpr (sizeof(T) == 4) {
      map2<V>(out, grad, in, n, [&](R g, R x) {
        const R ax = V::min(V::abs(x), V::set1(15.0f));
        const R e = exp_minus_half_square(ax);
        const R w_plus_3 = V::fmadd(ax, V::set1(0.70710678118654752440f), V::set1(3.0f));
        const R phi_neg = V::mul(V::div(half_g(ax, w_plus_3), w_plus_3), e);  // Phi(-|x|)
        const R cdf = V::select_nonpositive(x, phi_neg, V::sub(one, phi_neg));
        return V::mul(g, V::fmadd(V::mul(x, e), inv_sqrt_2pi, cdf));
      });
    } else {
      const R half = V::set1(T(0.5)), minus_half = V::set1(T(-0.5));
      const R rsqrt2 = V::set1(T(0.70710678118654752440));
      map2<V>(out, grad, in, n, [&](R g, R x) {
        const R cdf = V::mul(half, V::add(one, V::erf(V::mul(x, rsqrt2))));
        const R pdf = V::mul(V::exp(V::mul(V::mul(minus_half, x), x)), inv_sqrt_2pi);
        return V::mul(g, V::add(cdf, V::mul(x, pdf)));
      });
    }
  }

  // The tanh approximation's gradient with s = sigmoid(2t) = (1 + tanh t) / 2, so that
  // (1 - tanh^2 t) / 2 = 2 s (1 - s): grad * (s + 2 x s (1 - s) sqrt(2/pi) (1 + 3 * 0.044715 x^2)),
  // with SLEEF's exp as gelu_tanh.
  static void gelu_tanh_backward(T* out, const T* grad, const T* in, int64_t n) {
    const R one = V::set1(T(1)), two_k = V::set1(T(2 * 0.79788456080286535588));
    const R minus_two_k = V::set1(T(-2 * 0.79788456080286535588));
    const R c = V::set1(T(0.044715)), three_c = V::set1(T(3 * 0.044715));
    map2<V>(out, grad, in, n, [&](R g, R x) {
      const R x2 = V::mul(x, x);
      const R t2 = V::mul(minus_two_k, V::add(x, V::mul(V::mul(c, x2), x)));  // -2t
      const R s = V::div(one, V::add(one, V::exp(t2)));
      const R slope = V::mul(two_k, V::add(one, V::mul(three_c, x2)));
      const R right = V::mul(V::mul(V::mul(x, s), V::sub(one, s)), slope);
      return V::mul(g, V::add(s, right));
    });
  }

  // exp(-a^2 / 2) for a in [0, 15], inline (as a call it would cost as much as the rest of gelu).
  // a^2 is split exactly into a2 + a2_lo (fma), since the exponent's rounding error would be
  // magnified by a^2 / 2 in the result. The reduction works on a2 itself, which saves the halving:
  //   exp(-a^2 / 2) = 2^n exp(-r / 2),  n = round(-a2 / 2 / ln 2),  r = a2 + 2 n ln 2 + a2_lo,
  // with |r| <= ln 2 and 2 ln 2 in two parts (SLEEF's expf split, doubled) so that a2 + 2 n ln2_hi
  // is exact. exp(-r / 2) is a degree-6 polynomial in r with the leading 1 - r / 2 exact, the rest
  // fitted with mpmath (`chebyfit`, 8e-9 absolute); V::scale multiplies by 2^n in one rounding,
  // subnormal results included.
  static R exp_minus_half_square(R a) {
    static constexpr float kP[] = {2.175966185580e-05f,
                                   -2.613493453976e-04f,
                                   2.604159663575e-03f,
                                   -2.083322123712e-02f,
                                   1.25e-01f,
                                   -0.5f,
                                   1.0f};
    const R a2 = V::mul(a, a);
    const R a2_lo = V::fmsub(a, a, a2);
    const R n = V::round(V::mul(a2, V::set1(-0.5f * 1.44269504088896341f)));
    R r = V::fmadd(n, V::set1(2 * 0.693145751953125f), a2);
    r = V::add(V::fmadd(n, V::set1(2 * 1.428606765330187045e-06f), r), a2_lo);
    R u = V::set1(kP[0]);
    for (int i = 1; i < 7; ++i) u = V::fmadd(u, r, V::set1(kP[i]));
    return V::scale(u, n);
  }

  // 0.5 x (1 + tanh(t)), t = sqrt(2/pi) (x + 0.044715 x^3), written as x / (1 + exp(-2t)): the
  // same value (0.5 (1 + tanh t) = sigmoid(2t)), without the cancellation of 1 + tanh(t) for
  // negative x, and with SLEEF's exp, five times cheaper than its 1-ulp tanh.
  static void gelu_tanh(T* out, const T* in, int64_t n) {
    const R one = V::set1(T(1)), minus_two_k = V::set1(T(-2 * 0.79788456080286535588));
    const R c = V::set1(T(0.044715));
    map<V>(out, in, n, [&](R x) {
      const R cube = V::mul(V::mul(V::mul(c, x), x), x);
      return V::div(x, V::add(one, V::exp(V::mul(minus_two_k, V::add(x, cube)))));
    });
  }

  // softmax:     y = exp(x - max) * (1 / sum(exp(x - max)))
  // log_softmax: y = (x - max) - log(sum(exp(x - max)))
  // As in kernel_math/softmax_row.h, a NaN anywhere makes the row NaN: the maximum skips NaNs
  // (max(x, m) keeps m when x is NaN), and exp(NaN - max) brings the NaN into the sum, hence every
  // output.
  static void softmax_row(T* out, const T* in, int64_t D, bool log_space) {
    constexpr int W = V::W;
    if (D <= 0) return;
    const T neg_inf = -static_cast<T>(INFINITY);
    const int64_t body = D - D % W, tail = D - body;
    R vmax = V::set1(neg_inf);
    for (int64_t i = 0; i < body; i += W) vmax = V::max(V::load(in + i), vmax);
    if (tail) vmax = V::max(V::load_n(in + body, tail, neg_inf), vmax);
    const R m = V::set1(V::reduce_max(vmax));
    // Lanes past the row read -inf, so exp gives 0 there (unless the maximum is -inf too, when the
    // row is all -inf and its result NaN anyway).
    R s0 = V::set1(T(0)), s1 = s0;
    int64_t i = 0;
    if (log_space) {
      for (; i + 2 * W <= body; i += 2 * W) {
        s0 = V::add(s0, V::exp(V::sub(V::load(in + i), m)));
        s1 = V::add(s1, V::exp(V::sub(V::load(in + i + W), m)));
      }
      for (; i < body; i += W) s0 = V::add(s0, V::exp(V::sub(V::load(in + i), m)));
      if (tail) s0 = V::add(s0, V::exp(V::sub(V::load_n(in + body, tail, neg_inf), m)));
      // (x - max) - log(sum), in this order: x - (max + log(sum)) loses the digits of x - max.
      const R log_sum = V::set1(V::scalar_log(V::reduce_add(V::add(s0, s1))));
      for (i = 0; i < body; i += W) V::store(out + i, V::sub(V::sub(V::load(in + i), m), log_sum));
      if (tail) {
        V::store_n(out + body, V::sub(V::sub(V::load_n(in + body, tail, T(0)), m), log_sum), tail);
      }
      return;
    }
    for (; i + 2 * W <= body; i += 2 * W) {
      const R a = V::exp(V::sub(V::load(in + i), m)), b = V::exp(V::sub(V::load(in + i + W), m));
      V::store(out + i, a);
      V::store(out + i + W, b);
      s0 = V::add(s0, a);
      s1 = V::add(s1, b);
    }
    for (; i < body; i += W) {
      const R e = V::exp(V::sub(V::load(in + i), m));
      V::store(out + i, e);
      s0 = V::add(s0, e);
    }
    R e_tail = s0;
    if (tail) {
      e_tail = V::exp(V::sub(V::load_n(in + body, tail, neg_inf), m));
      s0 = V::add(s0, e_tail);
    }
    const R inv = V::set1(T(1) / V::reduce_add(V::add(s0, s1)));
    for (i = 0; i < body; i += W) V::store(out + i, V::mul(V::load(out + i), inv));
    if (tail) V::store_n(out + body, V::mul(e_tail, inv), tail);
  }

  // The gradient of one row, from the saved output y (kernel_math/softmax_row.h):
  //   softmax:     dx = y * (dy - sum(dy * y))
  //   log_softmax: dx = dy - exp(y) * sum(dy)
  static void softmax_backward_row(T* gx, const T* gy, const T* y, int64_t D, bool log_space) {
    constexpr int W = V::W;
    const int64_t body = D - D % W, tail = D - body;
    R s0 = V::set1(T(0)), s1 = s0;
    int64_t i = 0;
    if (log_space) {
      for (; i + 2 * W <= body; i += 2 * W) {
        s0 = V::add(s0, V::load(gy + i));
        s1 = V::add(s1, V::load(gy + i + W));
      }
      for (; i < body; i += W) s0 = V::add(s0, V::load(gy + i));
      if (tail) s0 = V::add(s0, V::load_n(gy + body, tail, T(0)));
    } else {
      for (; i + 2 * W <= body; i += 2 * W) {
        s0 = V::add(s0, V::mul(V::load(gy + i), V::load(y + i)));
        s1 = V::add(s1, V::mul(V::load(gy + i + W), V::load(y + i + W)));
      }
      for (; i < body; i += W) s0 = V::add(s0, V::mul(V::load(gy + i), V::load(y + i)));
      if (tail) {
        s0 = V::add(s0, V::mul(V::load_n(gy + body, tail, T(0)), V::load_n(y + body, tail, T(0))));
      }
    }
    const R dot = V::set1(V::reduce_add(V::add(s0, s1)));
    const auto grad = [&](R g, R out) {
      return log_space ? V::sub(g, V::mul(V::exp(out), dot)) : V::mul(out, V::sub(g, dot));
    };
    for (i = 0; i < body; i += W) V::store(gx + i, grad(V::load(gy + i), V::load(y + i)));
    if (tail) {
      V::store_n(gx + body, grad(V::load_n(gy + body, tail, T(0)), V::load_n(y + body, tail, T(0))),
                 tail);
    }
  }

  // Softmax over a dim other than the last, on `ncols` neighbouring columns of a [D, inner] slice
  // (element (d, j) at d * stride + j): the passes of softmax_row with each register holding W
  // columns, so every lane is one softmax and needs no reduction across lanes.
  static void softmax_cols(T* out, const T* in, int64_t D, int64_t stride, int64_t ncols,
                           bool log_space) {
    constexpr int W = V::W;
    const T neg_inf = -static_cast<T>(INFINITY);
    for (int64_t j = 0; j < ncols; j += W) {
      const int64_t n = ncols - j < W ? ncols - j : W;
      const auto load = [&](const T* p) { return n == W ? V::load(p) : V::load_n(p, n, T(0)); };
      const auto store = [&](T* p, R v) { n == W ? V::store(p, v) : V::store_n(p, v, n); };
      const T* x = in + j;
      T* y = out + j;
      R m = V::set1(neg_inf);
      for (int64_t d = 0; d < D; ++d) m = V::max(load(x + d * stride), m);
      R sum = V::set1(T(0));
      for (int64_t d = 0; d < D; ++d) {
        const R e = V::exp(V::sub(load(x + d * stride), m));
        if (!log_space) store(y + d * stride, e);
        sum = V::add(sum, e);
      }
      if (log_space) {
        const R log_sum = V::log(sum);
        for (int64_t d = 0; d < D; ++d) {
          store(y + d * stride, V::sub(V::sub(load(x + d * stride), m), log_sum));
        }
      } else {
        const R inv = V::div(V::set1(T(1)), sum);
        for (int64_t d = 0; d < D; ++d) store(y + d * stride, V::mul(load(y + d * stride), inv));
      }
    }
  }

  // The gradient of softmax_cols, from its saved output y.
  static void softmax_backward_cols(T* gx, const T* gy, const T* y, int64_t D, int64_t stride,
                                    int64_t ncols, bool log_space) {
    constexpr int W = V::W;
    for (int64_t j = 0; j < ncols; j += W) {
      const int64_t n = ncols - j < W ? ncols - j : W;
      const auto load = [&](const T* p) { return n == W ? V::load(p) : V::load_n(p, n, T(0)); };
      R dot = V::set1(T(0));
      for (int64_t d = 0; d < D; ++d) {
        const R g = load(gy + j + d * stride);
        dot = V::add(dot, log_space ? g : V::mul(g, load(y + j + d * stride)));
      }
      for (int64_t d = 0; d < D; ++d) {
        const R g = load(gy + j + d * stride), out = load(y + j + d * stride);
        const R r = log_space ? V::sub(g, V::mul(V::exp(out), dot)) : V::mul(out, V::sub(g, dot));
        n == W ? V::store(gx + j + d * stride, r) : V::store_n(gx + j + d * stride, r, n);
      }
    }
  }
};

// The table of one ISA, from its float and double vector types.
template <class VF, class VD>
constexpr VecMathKernels make_kernels(CpuIsa isa) {
  using F = Ops<VF>;
  using D = Ops<VD>;
  return VecMathKernels{
      isa,
      {F::exp, F::log, F::log1p, F::tanh, F::sigmoid, F::gelu, F::gelu_tanh, F::silu, F::erf},
      {D::exp, D::log, D::log1p, D::tanh, D::sigmoid, D::gelu, D::gelu_tanh, D::silu, D::erf},
      F::softmax_row,
      D::softmax_row,
      F::softmax_backward_row,
      D::softmax_backward_row,
      F::softmax_cols,
      D::softmax_cols,
      F::softmax_backward_cols,
      D::softmax_backward_cols,
      {F::gelu_backward, F::gelu_tanh_backward},
      {D::gelu_backward, D::gelu_tanh_backward},
  };
}

}  // namespace ember::cpu::simd
