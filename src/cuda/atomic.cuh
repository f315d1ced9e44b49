#pragma once
// atomic_add for every dtype the index and pooling kernels accumulate.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dispatch.h"

namespace ember::cuda {

// Adds v at p. 1- and 2-byte types go through a compare-and-swap on their aligned 32-bit word.
template <typename T>
__device__ inline void atomic_add(T* p, T v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                std::is_same_v<T, int32_t>) {
    atomicAdd(p, v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else {
    static_assert(sizeof(T) <= 2, "unexpected type");
    auto addr = reinterpret_cast<uintptr_t>(p);
    auto* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t(3));
    const unsigned shift = static_cast<unsigned>(addr & 3) * 8;
    const unsigned mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    unsigned old = *word, assumed;
    do {
      assumed = old;
      T cur;
      const auto bits = static_cast<uint16_t>((assumed & mask) >> shift);
      if constexpr (sizeof(T) == 1) {
        const auto b8 = static_cast<uint8_t>(bits);
        memcpy(&cur, &b8, 1);
      } else {
        memcpy(&cur, &bits, 2);
      }
      T sum;
      if constexpr (std::is_same_v<T, bool>) {
        sum = cur || v;
      } else {
        sum = static_cast<T>(static_cast<acc_t<T>>(cur) + static_cast<acc_t<T>>(v));
      }
      unsigned sbits = 0;
      memcpy(&sbits, &sum, sizeof(T));
      old = atomicCAS(word, assumed, (assumed & ~mask) | ((sbits << shift) & mask));
    } while (old != assumed);
  }
}

}  // namespace ember::cuda
