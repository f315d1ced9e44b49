// The vector kernels for AVX-512 (compiled with -mavx512f; src/cpu/vec_math.cpp calls in only on a
// CPU that has it): 16 floats or 8 doubles per register, SLEEF's avx512f functions, masked loads
// and stores for the end of an array. See vec_kernels.h for what may be included here.
// GCC 12's AVX-512 intrinsics pass _mm*_undefined_*() as the unused merge operand, which its own
// -W(maybe-)uninitialized reports (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#include <sleef.h>

#include "cpu/simd/vec_kernels.h"

namespace ember::cpu {
namespace {

struct F32x16 {
  using T = float;
  using R = __m512;
  static constexpr int W = 16;
  static __mmask16 first(int64_t n) { return static_cast<__mmask16>((1u << n) - 1u); }
  static R load(const T* p) { return _mm512_loadu_ps(p); }
  static R load_n(const T* p, int64_t n, T fill) {
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), first(n), p);
  }
  static void store(T* p, R v) { _mm512_storeu_ps(p, v); }
  static void store_n(T* p, R v, int64_t n) { _mm512_mask_storeu_ps(p, first(n), v); }
  static R set1(T v) { return _mm512_set1_ps(v); }
  static R add(R a, R b) { return _mm512_add_ps(a, b); }
  static R sub(R a, R b) { return _mm512_sub_ps(a, b); }
  static R mul(R a, R b) { return _mm512_mul_ps(a, b); }
  static R div(R a, R b) { return _mm512_div_ps(a, b); }
  static R neg(R a) {  // flips the sign bit, as -x does (NaN stays NaN)
    return _mm512_castsi512_ps(
        _mm512_xor_si512(_mm512_castps_si512(a), _mm512_set1_epi32(static_cast<int>(0x80000000u))));
  }
  static R fmadd(R a, R b, R c) { return _mm512_fmadd_ps(a, b, c); }
  static R fmsub(R a, R b, R c) { return _mm512_fmsub_ps(a, b, c); }
  static R fnmadd(R a, R b, R c) { return _mm512_fnmadd_ps(a, b, c); }
  static R abs(R a) { return _mm512_abs_ps(a); }
  static R min(R a, R b) { return _mm512_min_ps(a, b); }
  static R max(R a, R b) { return _mm512_max_ps(a, b); }  // b where either is NaN
  static R select_nonpositive(R x, R a, R b) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LE_OQ), b, a);
  }
  static R round(R a) {
    return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  static R scale(R u, R q) { return _mm512_scalef_ps(u, q); }
  static T reduce_add(R v) { return _mm512_reduce_add_ps(v); }
  static T reduce_max(R v) { return _mm512_reduce_max_ps(v); }
  static T scalar_log(T v) { return ::logf(v); }
  static R exp(R x) { return Sleef_expf16_u10avx512f(x); }
  static R log(R x) { return Sleef_logf16_u10avx512f(x); }
  static R log1p(R x) {
    // SLEEF's log1pf holds its bound up to 1e38 and gives inf above, where log1p(x) is log(x).
    const __mmask16 big = _mm512_cmp_ps_mask(x, _mm512_set1_ps(1e38f), _CMP_GT_OQ);
    const R y = Sleef_log1pf16_u10avx512f(x);
    return big ? _mm512_mask_blend_ps(big, y, Sleef_logf16_u10avx512f(x)) : y;
  }
  static R tanh(R x) { return Sleef_tanhf16_u10avx512f(x); }
  static R erf(R x) {
    // SLEEF's erff is 1.07 ulp just above FLT_MIN (a product inside goes subnormal); erf is linear
    // there, so those lanes scale the argument up by 2^64 and the result back down.
    const __mmask16 tiny =
        _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(0x1p-100f), _CMP_LT_OQ);
    const R y = Sleef_erff16_u10avx512f(x);
    if (!tiny) return y;
    const R up = Sleef_erff16_u10avx512f(_mm512_mul_ps(x, _mm512_set1_ps(0x1p64f)));
    return _mm512_mask_blend_ps(tiny, y, _mm512_mul_ps(up, _mm512_set1_ps(0x1p-64f)));
  }
};

struct F64x8 {
  using T = double;
  using R = __m512d;
  static constexpr int W = 8;
  static __mmask8 first(int64_t n) { return static_cast<__mmask8>((1u << n) - 1u); }
  static R load(const T* p) { return _mm512_loadu_pd(p); }
  static R load_n(const T* p, int64_t n, T fill) {
    return _mm512_mask_loadu_pd(_mm512_set1_pd(fill), first(n), p);
  }
  static void store(T* p, R v) { _mm512_storeu_pd(p, v); }
  static void store_n(T* p, R v, int64_t n) { _mm512_mask_storeu_pd(p, first(n), v); }
  static R set1(T v) { return _mm512_set1_pd(v); }
  static R add(R a, R b) { return _mm512_add_pd(a, b); }
  static R sub(R a, R b) { return _mm512_sub_pd(a, b); }
  static R mul(R a, R b) { return _mm512_mul_pd(a, b); }
  static R div(R a, R b) { return _mm512_div_pd(a, b); }
  static R neg(R a) {
    return _mm512_castsi512_pd(_mm512_xor_si512(
        _mm512_castpd_si512(a), _mm512_set1_epi64(static_cast<long long>(0x8000000000000000ull))));
  }
  static R max(R a, R b) { return _mm512_max_pd(a, b); }
  static T reduce_add(R v) { return _mm512_reduce_add_pd(v); }
  static T reduce_max(R v) { return _mm512_reduce_max_pd(v); }
  static T scalar_log(T v) { return ::log(v); }
  // SLEEF's exp gives inf from 709.78271114955760 on, where the exact result stays finite up to
  // log(DBL_MAX) = 709.78271289338397: lanes in that window take the C library's exp.
  static R exp(R x) {
    const R y = Sleef_expd8_u10avx512f(x);
    const __mmask8 edge = _mm512_cmp_pd_mask(x, _mm512_set1_pd(709.78271), _CMP_GT_OQ) &
                          _mm512_cmp_pd_mask(x, _mm512_set1_pd(709.79), _CMP_LT_OQ);
    if (!edge) return y;
    alignas(64) double xs[W], ys[W];
    _mm512_store_pd(xs, x);
    _mm512_store_pd(ys, y);
    for (int i = 0; i < W; ++i) {
      if ((edge >> i) & 1) ys[i] = ::exp(xs[i]);
    }
    return _mm512_load_pd(ys);
  }
  static R log(R x) { return Sleef_logd8_u10avx512f(x); }
  static R log1p(R x) {  // SLEEF's log1p: bounded up to 1e307, inf above
    const __mmask8 big = _mm512_cmp_pd_mask(x, _mm512_set1_pd(1e307), _CMP_GT_OQ);
    const R y = Sleef_log1pd8_u10avx512f(x);
    return big ? _mm512_mask_blend_pd(big, y, Sleef_logd8_u10avx512f(x)) : y;
  }
  static R tanh(R x) { return Sleef_tanhd8_u10avx512f(x); }
  static R erf(R x) { return Sleef_erfd8_u10avx512f(x); }
};

constexpr VecMathKernels kAvx512 = simd::make_kernels<F32x16, F64x8>(CpuIsa::kAvx512);

}  // namespace

const VecMathKernels& vec_math_avx512() {
  return kAvx512;
}

}  // namespace ember::cpu
