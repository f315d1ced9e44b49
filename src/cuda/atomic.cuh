#pragma once
// atomic_add for every dtype the index and pooling kernels accumulate.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernel_math/dispatch.h"

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

namespace ember::cuda {

// Adds v at p. On sm_80+ half and bfloat16 use CUDA's 16-bit atomicAdd: one atom.add.f16 (bf16
// on sm_90; CUDA's own 16-bit compare-and-swap on sm_80), which rounds the exact sum to nearest
// even, as the float sum rounded once below does. Elsewhere, and for the other 1- and 2-byte
// types, a compare-and-swap on the aligned 32-bit word (what the simulator runs).
template <typename T>
__device__ inline void atomic_add(T* p, T v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                std::is_same_v<T, int32_t>) {
    atomicAdd(p, v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  } else if constexpr (std::is_same_v<T, Half>) {
    atomicAdd(reinterpret_cast<__half*>(p), __ushort_as_half(v.x));
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    atomicAdd(reinterpret_cast<__nv_bfloat16*>(p), __ushort_as_bfloat16(v.x));
#endif
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
        memcpy(static_cast<void*>(&cur), &b8, 1);  // T's bytes (Half, BFloat16 are classes)
      } else {
        memcpy(static_cast<void*>(&cur), &bits, 2);
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
