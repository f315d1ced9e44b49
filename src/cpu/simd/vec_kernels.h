#pragma once
// The vector kernels of src/cpu/vec_math.h, written once over a vector type V and compiled once per
// instruction set (avx2.cpp, avx512.cpp, each with its own -m flags). V supplies, for one register
// of W lanes of T: load/store, load_n/store_n (the first n lanes, the rest of a load filled with a
// value), set1, arithmetic, max (the second operand where either is NaN), reduce_add/reduce_max
// and SLEEF's exp/log/log1p/tanh/erf; for float also fmadd a*b+c, fmsub a*b-c, fnmadd c-a*b, abs,
// min and select_negative(x, a, b) (a where x < 0, else b), which gelu_f32 uses.
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

// Each op computes its functor's formula (core/functors.h) in the same order.
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
  //   c = Phi(-|x|) = exp(-x^2 / 2) * G(q) / (2 (w + 3)),  w = |x| / sqrt(2),  q = (w - 3) / (w +
  //   3) gelu(x) = x < 0 ? x * c : x * (1 - c)
  // G(q) = erfcx(w) * (w + 3) lies in [0.56, 3] (well conditioned); its degree-9 polynomial was
  // fitted with mpmath, `chebyfit(G, [-1, 8/14], 10)`, to 8e-9 relative on w in [0, 11]. x^2 keeps
  // its rounding error (fma), which exp(-x^2 / 2) would otherwise magnify by x^2 / 2. The result is
  // within 6 ulp over the whole range (tests/test_cpu_vector_math.cpp); SLEEF's 1-ulp erf in the
  // functor's formula costs four times as much here, and PyTorch's own erf (1.5e-7 absolute) is as
  // inexact as the formula in the tail.
  static R gelu_f32(R x) {
    static constexpr float kG[] = {-3.318628296e-04f, -4.936284386e-04f, 3.082170850e-03f,
                                   -1.217948622e-03f, -2.683879435e-02f, 1.195269078e-01f,
                                   -3.104663491e-01f, 5.902284980e-01f,  -8.833944798e-01f,
                                   1.074006915e+00f};
    // Beyond |x| = 15, Phi(-|x|) is below the smallest float: c = 0. The clamp also keeps inf out
    // of q; NaN becomes 15 here and stays NaN through the final product.
    const R ax = V::min(V::abs(x), V::set1(15.0f));
    const R minus_half = V::set1(-0.5f);
    const R s = V::mul(ax, ax);
    const R e0 = V::exp(V::mul(s, minus_half));
    const R e = V::fmadd(e0, V::mul(V::fmsub(ax, ax, s), minus_half), e0);  // e0 * (1 - err / 2)
    const R w = V::mul(ax, V::set1(0.70710678118654752440f)), k = V::set1(3.0f);
    const R d = V::div(V::set1(1.0f), V::add(w, k));
    const R q = V::mul(V::sub(w, k), d);
    R g = V::set1(kG[0]);
    for (int i = 1; i < 10; ++i) g = V::fmadd(g, q, V::set1(kG[i]));
    const R half_r = V::mul(g, V::mul(d, V::set1(0.5f)));
    // x < 0: (x * G d / 2) * e, so a subnormal e does not cost the product its digits.
    const R neg = V::mul(V::mul(x, half_r), e);
    const R pos = V::mul(x, V::fnmadd(half_r, e, V::set1(1.0f)));
    return V::select_negative(x, neg, pos);
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
  // As in core/softmax_row.h, a NaN anywhere makes the row NaN: the maximum skips NaNs (max(x, m)
  // keeps m when x is NaN), and exp(NaN - max) brings the NaN into the sum, hence every output.
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
};

// The table of one ISA, from its float and double vector types.
template <class VF, class VD>
constexpr VecMathKernels make_kernels(CpuIsa isa) {
  using F = Ops<VF>;
  using D = Ops<VD>;
  return VecMathKernels{
      isa,
      {F::exp, F::log, F::log1p, F::tanh, F::sigmoid, F::gelu, F::gelu_tanh, F::silu},
      {D::exp, D::log, D::log1p, D::tanh, D::sigmoid, D::gelu, D::gelu_tanh, D::silu},
      F::softmax_row,
      D::softmax_row,
  };
}

}  // namespace ember::cpu::simd
