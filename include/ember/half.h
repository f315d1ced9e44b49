#pragma once
// 16-bit floating point host types. The conversions are plain bit arithmetic marked EMBER_HD, so
// the CPU and the CUDA kernels round exactly the same way (round to nearest even). On sm_80+ the
// device uses the hardware conversions, which round the same way; NaNs, where the hardware gives
// its canonical NaN, keep the bit arithmetic's sign and payload, so results stay bit-identical.
#include <cstdint>
#include <cstring>
#include <ostream>

#include "ember/macros.h"

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define EMBER_NATIVE_16BIT_CONVERSIONS 1
#endif

namespace ember {
namespace detail {

EMBER_HD_INLINE uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
EMBER_HD_INLINE float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

EMBER_HD_INLINE uint16_t float_to_half_bits(float f) {
#if defined(EMBER_NATIVE_16BIT_CONVERSIONS)
  if (f == f) return __half_as_ushort(__float2half_rn(f));
#endif
  uint32_t x = float_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));  // inf/nan
  int32_t e = static_cast<int32_t>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (e <= 0) {                                               // subnormal or zero
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half_mant = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
    return static_cast<uint16_t>(sign | half_mant);
  }
  uint32_t h = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // carries into exponent correctly
  return static_cast<uint16_t>(h);
}

EMBER_HD_INLINE float half_bits_to_float(uint16_t h) {
#if defined(EMBER_NATIVE_16BIT_CONVERSIONS)
  if ((h & 0x7fffu) <= 0x7c00u) return __half2float(__ushort_as_half(h));  // not NaN
#endif
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    if (mant == 0) return bits_float(sign);
    // subnormal: value = mant * 2^-24
    float v = static_cast<float>(mant) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13));
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

EMBER_HD_INLINE uint16_t float_to_bf16_bits(float f) {
#if defined(EMBER_NATIVE_16BIT_CONVERSIONS)
  if (f == f) return __bfloat16_as_ushort(__float2bfloat16_rn(f));
#endif
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // nan
  uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}
EMBER_HD_INLINE float bf16_bits_to_float(uint16_t b) {
#if defined(EMBER_NATIVE_16BIT_CONVERSIONS)
  return __bfloat162float(__ushort_as_bfloat16(b));  // a shift, NaN payloads included
#else
  return bits_float(static_cast<uint32_t>(b) << 16);
#endif
}

}  // namespace detail

struct Half {
  uint16_t x = 0;
  Half() = default;
  struct from_bits_t {};
  EMBER_HD constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  EMBER_HD Half(float f) : x(detail::float_to_half_bits(f)) {}
  EMBER_HD operator float() const { return detail::half_bits_to_float(x); }
};

struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  struct from_bits_t {};
  EMBER_HD constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  EMBER_HD BFloat16(float f) : x(detail::float_to_bf16_bits(f)) {}
  EMBER_HD operator float() const { return detail::bf16_bits_to_float(x); }
};

inline std::ostream& operator<<(std::ostream& os, Half h) {
  return os << static_cast<float>(h);
}
inline std::ostream& operator<<(std::ostream& os, BFloat16 h) {
  return os << static_cast<float>(h);
}

}  // namespace ember
