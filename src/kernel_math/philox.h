#pragma once
// Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a
// counter-based generator. Element i of a random tensor draws from block (offset + i) under the
// key `seed`, so the same seed gives the same numbers on the CPU and on CUDA, in any order.
//
// "The same numbers" means bit for bit, so everything below avoids what differs between g++ and
// nvcc: libm vs libdevice (log and cos are written here from + - * / only) and contraction of
// a * b + c into an FMA (nvcc does it by default; every multiply-add goes through mul_rn/add_rn).
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ember/half.h"
#include "ember/macros.h"

// The host side relies on double arithmetic rounding each operation to double (SSE2, not x87).
#if !defined(__CUDA_ARCH__) && defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error "Ember's deterministic random numbers need FLT_EVAL_METHOD == 0 (e.g. x86-64 SSE2 math)"
#endif

namespace ember::philox {

// ---- arithmetic that is never fused into an FMA ----
// Device: the __d*_rn / __f*_rn intrinsics are never contracted. Host: g++ builds for plain
// x86-64 (no -mfma, no -march=native), which has no FMA instruction, so nothing can be fused and
// the plain operators are used. Where GCC does have one (-mfma, -march=native, aarch64) it fuses
// even across statements under its default -ffp-contract=fast, so there an empty asm hides each
// product from the optimiser (clang only fuses within one expression: nothing to do).
#if !defined(__CUDA_ARCH__) && defined(__GNUC__) && !defined(__clang__) && defined(__FP_FAST_FMA)
#if defined(__x86_64__) || defined(__i386__)
#define EMBER_FP_OPAQUE(x) __asm__("" : "+x"(x))
#elif defined(__aarch64__)
#define EMBER_FP_OPAQUE(x) __asm__("" : "+w"(x))
#else
#define EMBER_FP_OPAQUE(x) __asm__("" : "+m"(x))
#endif
#else
#define EMBER_FP_OPAQUE(x) ((void)0)
#endif

EMBER_HD_INLINE double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  double p = a * b;
  EMBER_FP_OPAQUE(p);
  return p;
#endif
}
EMBER_HD_INLINE double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
EMBER_HD_INLINE double sub_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
EMBER_HD_INLINE double div_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
EMBER_HD_INLINE float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  float p = a * b;
  EMBER_FP_OPAQUE(p);
  return p;
#endif
}
EMBER_HD_INLINE float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

// ---- deterministic log and cos for Box-Muller ----
namespace detail {

EMBER_HD_INLINE uint64_t double_bits(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(x));
#else
  uint64_t u;
  std::memcpy(&u, &x, 8);
  return u;
#endif
}
EMBER_HD_INLINE double bits_double(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  std::memcpy(&x, &u, 8);
  return x;
#endif
}

// An unevaluated sum hi + lo (double-double).
struct DD {
  double hi, lo;
};
// hi + lo == a + b exactly (Knuth's TwoSum, any magnitudes).
EMBER_HD_INLINE DD two_sum(double a, double b) {
  const double s = add_rn(a, b);
  const double bb = sub_rn(s, a);
  const double e = add_rn(sub_rn(a, sub_rn(s, bb)), sub_rn(b, bb));
  return {s, e};
}
// hi + lo == a * b exactly (Dekker's product with Veltkamp's split; |a|, |b| < 2^995).
EMBER_HD_INLINE DD two_prod(double a, double b) {
  const double ca = mul_rn(134217729.0, a), cb = mul_rn(134217729.0, b);  // 2^27 + 1
  const double ah = sub_rn(ca, sub_rn(ca, a)), al = sub_rn(a, ah);
  const double bh = sub_rn(cb, sub_rn(cb, b)), bl = sub_rn(b, bh);
  const double p = mul_rn(a, b);
  const double e = add_rn(add_rn(add_rn(sub_rn(mul_rn(ah, bh), p), mul_rn(ah, bl)), mul_rn(al, bh)),
                          mul_rn(al, bl));
  return {p, e};
}
// (c.hi + c.lo) * (x.hi + x.lo), to about 2^-104 relative.
EMBER_HD_INLINE DD dd_mul(DD c, DD x) {
  DD p = two_prod(c.hi, x.hi);
  p.lo = add_rn(p.lo, add_rn(mul_rn(c.hi, x.lo), mul_rn(c.lo, x.hi)));
  return p;
}

}  // namespace detail

// Natural log, within 0.501 ulp of the exact value (tested against long double over
// [1e-300, 1)): x = 2^k * (1 + f) with 1 + f in [sqrt(2)/2, sqrt(2)), and
// log(1 + f) = 2 atanh(s), s = f / (2 + f), summed as 2s + (2/3)s^3 (double-double) + a Taylor
// tail in s^2 (|s| <= 0.172: terms up to s^23 leave < 2^-60 relative).
EMBER_HD_INLINE double det_log(double x) {
  using namespace detail;
  if (!(x > 0.0)) return x == 0.0 ? bits_double(0xfff0000000000000ull) : bits_double(~0ull >> 1);
  uint64_t u = double_bits(x);
  int k = 0;
  if (u >= 0x7ff0000000000000ull) return x;  // +inf
  if (u < 0x0010000000000000ull) {           // subnormal: scale by 2^54 (exact)
    u = double_bits(mul_rn(x, 18014398509481984.0));
    k = -54;
  }
  k += static_cast<int>(u >> 52) - 1023;
  uint64_t mant = u & 0x000fffffffffffffull;
  if (mant >= 0x6a09e667f3bcdull) {  // mantissa >= sqrt(2): use m / 2, k + 1
    mant |= 0x3fe0000000000000ull;
    ++k;
  } else {
    mant |= 0x3ff0000000000000ull;
  }
  const double f = sub_rn(bits_double(mant), 1.0);  // exact (Sterbenz)
  // s = f / (2 + f) as sh + sl.
  const DD d = two_sum(2.0, f);
  const double sh = div_rn(f, d.hi);
  const DD p = two_prod(sh, d.hi);
  const double sl =
      div_rn(sub_rn(sub_rn(sub_rn(f, p.hi), p.lo), mul_rn(sh, d.lo)), d.hi);  // f - p.hi exact
  // (2/3) s^3 in double-double; s^3 = sh^3 + 3 sh^2 sl.
  const DD z = two_prod(sh, sh);
  DD s3 = two_prod(sh, z.hi);
  s3.lo = add_rn(s3.lo, add_rn(mul_rn(sh, z.lo), mul_rn(mul_rn(3.0, z.hi), sl)));
  const DD c3 = dd_mul({0x1.5555555555555p-1, 0x1.5555555555555p-55}, s3);  // 2/3
  // Tail s^5 * (2/5 + 2/7 s^2 + ... + 2/23 s^18).
  const double w = z.hi;
  // Coefficients 2/23, 2/21, ..., 2/5 as exact hex literals (no compiler-dependent folding).
  double t = 0x1.642c8590b2164p-4;
  t = add_rn(0x1.8618618618618p-4, mul_rn(w, t));
  t = add_rn(0x1.af286bca1af28p-4, mul_rn(w, t));
  t = add_rn(0x1.e1e1e1e1e1e1ep-4, mul_rn(w, t));
  t = add_rn(0x1.1111111111111p-3, mul_rn(w, t));
  t = add_rn(0x1.3b13b13b13b14p-3, mul_rn(w, t));
  t = add_rn(0x1.745d1745d1746p-3, mul_rn(w, t));
  t = add_rn(0x1.c71c71c71c71cp-3, mul_rn(w, t));
  t = add_rn(0x1.2492492492492p-2, mul_rn(w, t));
  t = add_rn(0x1.999999999999ap-2, mul_rn(w, t));
  const double tail = mul_rn(mul_rn(mul_rn(sh, w), w), t);
  // k ln2 with ln2 = LN2_HI + LN2_LO; LN2_HI has 42 bits, so k * LN2_HI is exact for |k| < 2048.
  const double dk = static_cast<double>(k);
  const DD a = two_sum(mul_rn(dk, 0x1.62e42fefa3800p-1), mul_rn(2.0, sh));
  const DD b = two_sum(a.hi, c3.hi);
  double lo = add_rn(mul_rn(dk, 0x1.ef35793c76730p-45), mul_rn(2.0, sl));
  lo = add_rn(lo, add_rn(c3.lo, tail));
  lo = add_rn(lo, add_rn(a.lo, b.lo));
  return add_rn(b.hi, lo);
}

// Cosine for |x| < 1e6 (NaN beyond), within 0.51 ulp of the exact value (tested against long
// double over [0, 2 pi)). x = n pi/2 + y with pi/2 split in 33 + 33 + 33 + 53 bits (n * piece
// exact for the first three, so y keeps its relative accuracy even next to a zero of cos), then
// Taylor series of cos or sin on |y| <= pi/4 + eps, with their first two terms in double-double.
EMBER_HD_INLINE double det_cos(double x) {
  using namespace detail;
  if (x < 0.0) x = -x;
  if (!(x < 1e6)) return bits_double(~0ull >> 1);  // NaN: outside the range this is written for
  const int n = static_cast<int>(add_rn(mul_rn(x, 0x1.45f306dc9c883p-1), 0.5));  // round(x 2/pi)
  const double dn = static_cast<double>(n);
  const double t = sub_rn(x, mul_rn(dn, 0x1.921fb54400000p+0));  // exact (Sterbenz) for n >= 1
  const DD r = two_sum(t, -mul_rn(dn, 0x1.0b4611a600000p-34));
  const DD s = two_sum(r.hi, -mul_rn(dn, 0x1.3198a2e000000p-69));
  const DD y =
      two_sum(s.hi, sub_rn(add_rn(r.lo, s.lo), mul_rn(dn, 0x1.b839a252049c1p-104)));  // y.hi+y.lo
  const DD z = two_prod(y.hi, y.hi);
  const double w = z.hi, hz = mul_rn(0.5, w);
  double res;
  if ((n & 1) == 0) {
    // cos(y) = 1 - z/2 + z^2/24 - z^3 (1/6! - z/8! + ... + z^6/18!), minus y.lo sin(y.hi).
    double q = 0x1.6827863b97d97p-53;                        // 1/18!
    q = add_rn(-0x1.ae7f3e733b81fp-45, mul_rn(w, q));        // 1/16!
    q = add_rn(0x1.93974a8c07c9dp-37, mul_rn(w, q));         // 1/14!
    q = add_rn(-0x1.1eed8eff8d898p-29, mul_rn(w, q));        // 1/12!
    q = add_rn(0x1.27e4fb7789f5cp-22, mul_rn(w, q));         // 1/10!
    q = add_rn(-0x1.a01a01a01a01ap-16, mul_rn(w, q));        // 1/8!
    q = add_rn(0x1.6c16c16c16c17p-10, mul_rn(w, q));         // 1/6!
    const double tail = mul_rn(mul_rn(mul_rn(w, w), w), q);  // z^3 (1/6! - ...), subtracted
    DD z2 = two_prod(w, w);                                  // z^2 = w^2 + 2 w z.lo
    z2.lo = add_rn(z2.lo, mul_rn(mul_rn(2.0, w), z.lo));
    const DD c4 = dd_mul({0x1.5555555555555p-5, 0x1.5555555555555p-59}, z2);  // z^2 / 24
    const double h = sub_rn(1.0, hz);
    const double e = sub_rn(sub_rn(1.0, h), hz);  // exact: 1 - hz == h + e
    const DD a = two_sum(h, c4.hi);
    const double ys = mul_rn(mul_rn(y.lo, y.hi), sub_rn(1.0, mul_rn(w, 0x1.5555555555555p-3)));
    double lo = sub_rn(c4.lo, mul_rn(0.5, z.lo));
    lo = sub_rn(lo, add_rn(tail, ys));
    lo = add_rn(add_rn(a.lo, e), lo);
    res = add_rn(a.hi, lo);
  } else {
    // sin(y) = y - y^3/6 + y^5 (1/5! - z/7! + ... - z^7/19!), plus y.lo cos(y.hi).
    double q = 0x1.2f49b46814157p-57;                  // 1/19!
    q = add_rn(-0x1.952c77030ad4ap-49, mul_rn(w, q));  // 1/17!
    q = add_rn(0x1.ae7f3e733b81fp-41, mul_rn(w, q));   // 1/15!
    q = add_rn(-0x1.6124613a86d09p-33, mul_rn(w, q));  // 1/13!
    q = add_rn(0x1.ae64567f544e4p-26, mul_rn(w, q));   // 1/11!
    q = add_rn(-0x1.71de3a556c734p-19, mul_rn(w, q));  // 1/9!
    q = add_rn(0x1.a01a01a01a01ap-13, mul_rn(w, q));   // 1/7!
    q = sub_rn(0x1.1111111111111p-7, mul_rn(w, q));    // 1/5!
    const double tail = mul_rn(mul_rn(mul_rn(y.hi, w), w), q);
    DD y3 = two_prod(y.hi, w);  // y^3 = y.hi w + y.hi z.lo
    y3.lo = add_rn(y3.lo, mul_rn(y.hi, z.lo));
    const DD c3 = dd_mul({0x1.5555555555555p-3, 0x1.5555555555555p-57}, y3);  // y^3 / 6
    const DD a = two_sum(y.hi, -c3.hi);
    const double yc =
        mul_rn(y.lo, add_rn(sub_rn(1.0, hz), mul_rn(mul_rn(w, w), 0x1.5555555555555p-5)));
    double lo = sub_rn(tail, c3.lo);
    lo = add_rn(lo, yc);
    lo = add_rn(a.lo, lo);
    res = add_rn(a.hi, lo);
  }
  return (n + 1) & 2 ? -res : res;  // n mod 4 = 0: cos, 1: -sin, 2: -cos, 3: sin
}

struct Block {
  uint32_t v[4];
};

EMBER_HD_INLINE void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}

EMBER_HD_INLINE Block philox4x32_10(uint64_t counter, uint64_t seed) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(0xD2511F53u, c0, hi0, lo0);
    mulhilo(0xCD9E8D57u, c2, hi1, lo1);
    uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return Block{{c0, c1, c2, c3}};
}

// Uniform in [0, 1): 24 bits for float, 53 bits for double.
EMBER_HD_INLINE float uniform_float(uint32_t u) {
  return (u >> 8) * (1.0f / 16777216.0f);
}
EMBER_HD_INLINE double uniform_double(uint32_t a, uint32_t b) {
  uint64_t x = (static_cast<uint64_t>(a) << 32 | b) >> 11;
  return static_cast<double>(x) * (1.0 / 9007199254740992.0);
}

// One standard normal per element, by Box-Muller on the block's first two 32-bit lanes pairs:
// sqrt(-2 det_log(u1)) * det_cos(2 pi u2), u1 clamped to >= 1e-300.
EMBER_HD_INLINE double normal_double(const Block& r) {
  double u1 = uniform_double(r.v[0], r.v[1]);
  double u2 = uniform_double(r.v[2], r.v[3]);
  if (u1 < 1e-300) u1 = 1e-300;
  // sqrt is correctly rounded on both devices; -2 * log is exact.
  return mul_rn(::sqrt(-2.0 * det_log(u1)), det_cos(mul_rn(6.283185307179586476925, u2)));
}

// ---- one element of a random tensor; CPU and CUDA kernels both call these ----
// Element i (row-major over the output) uses block r = philox4x32_10(offset + i, seed), then:
//  uniform [a, b): double: a + (b - a) * uniform_double(r.v[0], r.v[1]);
//                  float: float(a + (b - a) * double(uniform_float(r.v[0])));
//                  half / bfloat16: as float, but from the top 11 / 8 bits of r.v[0], so that
//                  [0, 1) cannot round up to 1 in the narrow type;
//  normal:         T(a + b * normal_double(r)) (mean a, std b);
//  randint [a, b): T(a + int64((uint64(r.v[0]) << 32 | r.v[1]) % uint64(b - a))).
// Each * and + above rounds separately (mul_rn / add_rn): never an FMA, on either device.
template <typename T>
EMBER_HD_INLINE T uniform_element(const Block& r, double a, double b) {
  if constexpr (sizeof(T) == 8) {
    return static_cast<T>(add_rn(a, mul_rn(b - a, uniform_double(r.v[0], r.v[1]))));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(
        static_cast<float>(add_rn(a, mul_rn(b - a, static_cast<double>(uniform_float(r.v[0]))))));
  } else {
    constexpr int bits = std::is_same_v<T, Half> ? 11 : 8;  // Half or BFloat16
    const double u = static_cast<double>(r.v[0] >> (32 - bits)) / static_cast<double>(1u << bits);
    return T(static_cast<float>(add_rn(a, mul_rn(b - a, u))));
  }
}
template <typename T>
EMBER_HD_INLINE T normal_element(const Block& r, double mean, double stddev) {
  const double v = add_rn(mean, mul_rn(stddev, normal_double(r)));
  if constexpr (sizeof(T) == 8) {
    return static_cast<T>(v);
  } else {
    return T(static_cast<float>(v));
  }
}
// low + (x mod range), added in uint64: range may exceed 2^63 (randint(INT64_MIN, INT64_MAX)).
EMBER_HD_INLINE int64_t randint_element(const Block& r, int64_t low, uint64_t range) {
  const uint64_t x = static_cast<uint64_t>(r.v[0]) << 32 | r.v[1];
  return static_cast<int64_t>(static_cast<uint64_t>(low) + x % range);
}

// start + step * i for integer aranges, in uint64: the product may pass 2^63 on the way to an
// element that fits (arange(INT64_MIN, INT64_MAX, 2^62)), and the wrapped sum is then exact.
EMBER_HD_INLINE int64_t arange_int_element(int64_t start, int64_t step, int64_t i) {
  return static_cast<int64_t>(static_cast<uint64_t>(start) +
                              static_cast<uint64_t>(step) * static_cast<uint64_t>(i));
}

}  // namespace ember::philox
