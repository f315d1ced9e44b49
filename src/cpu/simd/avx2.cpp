// The vector kernels for AVX2 + FMA (compiled with -mavx2 -mfma; src/cpu/vec_math.cpp calls in
// only on a CPU that has both): 8 floats or 4 doubles per register, SLEEF's avx2 functions, masked
// loads and stores for the end of an array. See vec_kernels.h for what may be included here.
#include <immintrin.h>
#include <sleef.h>

#include "cpu/simd/vec_kernels.h"

namespace ember::cpu {
namespace {

// Horizontal reductions of one 256-bit register: fold the halves, then within 128 bits.
inline __m128 fold(__m256 v) {
  return _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
}

struct F32x8 {
  using T = float;
  using R = __m256;
  static constexpr int W = 8;
  // All ones in the first n lanes: the mask of maskload/maskstore (lanes past n are not touched).
  static __m256i first(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static R load(const T* p) { return _mm256_loadu_ps(p); }
  static R load_n(const T* p, int64_t n, T fill) {
    const __m256i m = first(n);
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m));
  }
  static void store(T* p, R v) { _mm256_storeu_ps(p, v); }
  static void store_n(T* p, R v, int64_t n) { _mm256_maskstore_ps(p, first(n), v); }
  static R set1(T v) { return _mm256_set1_ps(v); }
  static R add(R a, R b) { return _mm256_add_ps(a, b); }
  static R sub(R a, R b) { return _mm256_sub_ps(a, b); }
  static R mul(R a, R b) { return _mm256_mul_ps(a, b); }
  static R div(R a, R b) { return _mm256_div_ps(a, b); }
  static R neg(R a) { return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f)); }
  static R fmadd(R a, R b, R c) { return _mm256_fmadd_ps(a, b, c); }
  static R fmsub(R a, R b, R c) { return _mm256_fmsub_ps(a, b, c); }
  static R fnmadd(R a, R b, R c) { return _mm256_fnmadd_ps(a, b, c); }
  static R abs(R a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
  static R min(R a, R b) { return _mm256_min_ps(a, b); }
  static R max(R a, R b) { return _mm256_max_ps(a, b); }  // b where either is NaN
  static R select_nonpositive(R x, R a, R b) {
    return _mm256_blendv_ps(b, a, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LE_OQ));
  }
  static R round(R a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  // u * 2^q for integral q in [-190, 63] (exp_minus_half_square's range): 2^(q + 64) is a normal
  // float, and the exact 2^-64 after it rounds a subnormal result once.
  static R scale(R u, R q) {
    const __m256i biased = _mm256_add_epi32(_mm256_cvtps_epi32(q), _mm256_set1_epi32(127 + 64));
    const R pow2 = _mm256_castsi256_ps(_mm256_slli_epi32(biased, 23));
    return _mm256_mul_ps(_mm256_mul_ps(u, pow2), _mm256_set1_ps(0x1p-64f));
  }
  static T reduce_add(R v) {
    __m128 s = fold(v);
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
  }
  static T reduce_max(R v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
  }
  static T scalar_log(T v) { return ::logf(v); }
  static R exp(R x) { return Sleef_expf8_u10avx2(x); }
  static R log(R x) { return Sleef_logf8_u10avx2(x); }
  static R log1p(R x) {
    // SLEEF's log1pf holds its bound up to 1e38 and gives inf above, where log1p(x) is log(x).
    const R big = _mm256_cmp_ps(x, _mm256_set1_ps(1e38f), _CMP_GT_OQ);
    const R y = Sleef_log1pf8_u10avx2(x);
    return _mm256_movemask_ps(big) ? _mm256_blendv_ps(y, Sleef_logf8_u10avx2(x), big) : y;
  }
  static R tanh(R x) { return Sleef_tanhf8_u10avx2(x); }
  static R erf(R x) {
    // SLEEF's erff is 1.07 ulp just above FLT_MIN (a product inside goes subnormal); erf is linear
    // there, so those lanes scale the argument up by 2^64 and the result back down.
    const R tiny = _mm256_cmp_ps(abs(x), _mm256_set1_ps(0x1p-100f), _CMP_LT_OQ);
    const R y = Sleef_erff8_u10avx2(x);
    if (!_mm256_movemask_ps(tiny)) return y;
    const R up = Sleef_erff8_u10avx2(_mm256_mul_ps(x, _mm256_set1_ps(0x1p64f)));
    return _mm256_blendv_ps(y, _mm256_mul_ps(up, _mm256_set1_ps(0x1p-64f)), tiny);
  }
};

struct F64x4 {
  using T = double;
  using R = __m256d;
  static constexpr int W = 4;
  static __m256i first(int64_t n) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
  }
  static R load(const T* p) { return _mm256_loadu_pd(p); }
  static R load_n(const T* p, int64_t n, T fill) {
    const __m256i m = first(n);
    return _mm256_blendv_pd(_mm256_set1_pd(fill), _mm256_maskload_pd(p, m), _mm256_castsi256_pd(m));
  }
  static void store(T* p, R v) { _mm256_storeu_pd(p, v); }
  static void store_n(T* p, R v, int64_t n) { _mm256_maskstore_pd(p, first(n), v); }
  static R set1(T v) { return _mm256_set1_pd(v); }
  static R add(R a, R b) { return _mm256_add_pd(a, b); }
  static R sub(R a, R b) { return _mm256_sub_pd(a, b); }
  static R mul(R a, R b) { return _mm256_mul_pd(a, b); }
  static R div(R a, R b) { return _mm256_div_pd(a, b); }
  static R neg(R a) { return _mm256_xor_pd(a, _mm256_set1_pd(-0.0)); }
  static R max(R a, R b) { return _mm256_max_pd(a, b); }
  static T reduce_add(R v) {
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
  }
  static T reduce_max(R v) {
    __m128d s = _mm_max_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_max_sd(s, _mm_unpackhi_pd(s, s)));
  }
  static T scalar_log(T v) { return ::log(v); }
  // SLEEF's exp gives inf from 709.78271114955760 on, where the exact result stays finite up to
  // log(DBL_MAX) = 709.78271289338397: lanes in that window take the C library's exp.
  static R exp(R x) {
    const R y = Sleef_expd4_u10avx2(x);
    const int edge = _mm256_movemask_pd(_mm256_and_pd(_mm256_cmp_pd(x, set1(709.78271), _CMP_GT_OQ),
                                                      _mm256_cmp_pd(x, set1(709.79), _CMP_LT_OQ)));
    if (!edge) return y;
    alignas(32) double xs[W], ys[W];
    _mm256_store_pd(xs, x);
    _mm256_store_pd(ys, y);
    for (int i = 0; i < W; ++i) {
      if ((edge >> i) & 1) ys[i] = ::exp(xs[i]);
    }
    return _mm256_load_pd(ys);
  }
  static R log(R x) { return Sleef_logd4_u10avx2(x); }
  static R log1p(R x) {  // SLEEF's log1p: bounded up to 1e307, inf above
    const R big = _mm256_cmp_pd(x, _mm256_set1_pd(1e307), _CMP_GT_OQ);
    const R y = Sleef_log1pd4_u10avx2(x);
    return _mm256_movemask_pd(big) ? _mm256_blendv_pd(y, Sleef_logd4_u10avx2(x), big) : y;
  }
  static R tanh(R x) { return Sleef_tanhd4_u10avx2(x); }
  static R erf(R x) { return Sleef_erfd4_u10avx2(x); }
};

constexpr VecMathKernels kAvx2 = simd::make_kernels<F32x8, F64x4>(CpuIsa::kAvx2);

}  // namespace

const VecMathKernels& vec_math_avx2() {
  return kAvx2;
}

}  // namespace ember::cpu
