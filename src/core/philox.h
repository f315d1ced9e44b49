#pragma once
// Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a
// counter-based generator. Element i of a random tensor draws from block (offset + i) under the
// key `seed`, so the same seed gives the same numbers on the CPU and on CUDA, in any order.
#include <cstdint>
#include <type_traits>

#include "ember/half.h"
#include "ember/macros.h"

namespace ember::philox {

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

// One standard normal per element, by Box-Muller on the block's first two 32-bit lanes pairs.
EMBER_HD_INLINE double normal_double(const Block& r) {
  double u1 = uniform_double(r.v[0], r.v[1]);
  double u2 = uniform_double(r.v[2], r.v[3]);
  if (u1 < 1e-300) u1 = 1e-300;
  return ::sqrt(-2.0 * ::log(u1)) * ::cos(6.283185307179586476925 * u2);
}

// ---- one element of a random tensor; CPU and CUDA kernels both call these ----
// Element i (row-major over the output) uses block r = philox4x32_10(offset + i, seed), then:
//  uniform [a, b): double: a + (b - a) * uniform_double(r.v[0], r.v[1]);
//                  float: float(a + (b - a) * double(uniform_float(r.v[0])));
//                  half / bfloat16: as float, but from the top 11 / 8 bits of r.v[0], so that
//                  [0, 1) cannot round up to 1 in the narrow type;
//  normal:         T(a + b * normal_double(r)) (mean a, std b);
//  randint [a, b): T(a + int64((uint64(r.v[0]) << 32 | r.v[1]) % uint64(b - a))).
template <typename T>
EMBER_HD_INLINE T uniform_element(const Block& r, double a, double b) {
  if constexpr (sizeof(T) == 8) {
    return static_cast<T>(a + (b - a) * uniform_double(r.v[0], r.v[1]));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(
        static_cast<float>(a + (b - a) * static_cast<double>(uniform_float(r.v[0]))));
  } else {
    constexpr int bits = std::is_same_v<T, Half> ? 11 : 8;  // Half or BFloat16
    const double u = static_cast<double>(r.v[0] >> (32 - bits)) / static_cast<double>(1u << bits);
    return T(static_cast<float>(a + (b - a) * u));
  }
}
template <typename T>
EMBER_HD_INLINE T normal_element(const Block& r, double mean, double stddev) {
  const double v = mean + stddev * normal_double(r);
  if constexpr (sizeof(T) == 8) {
    return static_cast<T>(v);
  } else {
    return T(static_cast<float>(v));
  }
}
EMBER_HD_INLINE int64_t randint_element(const Block& r, int64_t low, uint64_t range) {
  const uint64_t x = static_cast<uint64_t>(r.v[0]) << 32 | r.v[1];
  return low + static_cast<int64_t>(x % range);
}

}  // namespace ember::philox
