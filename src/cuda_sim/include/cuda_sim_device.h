#pragma once
// Device-side built-ins for CUDA sources compiled by the host compiler in the simulator: the
// execution-space keywords, threadIdx/blockIdx/blockDim/gridDim of the GPU thread that is
// running, __syncthreads, warp shuffles and votes (executed in lockstep by the kernel engine,
// src/cuda_sim/kernel_engine.cpp), atomics and the intrinsics Ember's kernels use.
#include <math.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda_runtime_api.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
// Shared memory: one copy per worker thread; a block's GPU threads are fibers on one worker.
#define __shared__ static thread_local
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict

namespace cuda_sim {

struct Builtins {
  uint3 thread_idx;
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
};

// The built-ins of the GPU thread running on this worker (valid inside a kernel only).
EMBER_SIM_API const Builtins& builtins();

enum class WarpOp : int { Sync, ShflIdx, ShflUp, ShflDown, ShflXor, Ballot, Any, All };
// One warp-collective operation: the calling lane waits until every lane in `mask` has arrived
// at a warp operation, then gets its result (a shuffled value, a ballot mask, or 0/1 for votes).
EMBER_SIM_API uint64_t warp_collective(WarpOp op, unsigned mask, uint64_t value, int param,
                                       int width);
EMBER_SIM_API void syncthreads();
// A failed device-side assertion: ends the GPU thread, the kernel fails with a sticky
// cudaErrorAssert ("device-side assert triggered"), as on a GPU.
[[noreturn]] EMBER_SIM_API void device_assert_fail(const char* what, const char* file, int line);
EMBER_SIM_API void* dynamic_shared_memory();

template <typename T>
inline uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "shuffle of a type > 8 bytes");
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <typename T>
inline T from_bits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

}  // namespace cuda_sim

#define threadIdx (::cuda_sim::builtins().thread_idx)
#define blockIdx (::cuda_sim::builtins().block_idx)
#define blockDim (::cuda_sim::builtins().block_dim)
#define gridDim (::cuda_sim::builtins().grid_dim)
constexpr int warpSize = 32;

inline void __syncthreads() {
  ::cuda_sim::syncthreads();
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  ::cuda_sim::warp_collective(::cuda_sim::WarpOp::Sync, mask, 0, 0, 32);
}
inline void __threadfence() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

template <typename T>
inline T __shfl_sync(unsigned mask, T v, int src_lane, int width = 32) {
  using namespace ::cuda_sim;
  return from_bits<T>(warp_collective(WarpOp::ShflIdx, mask, to_bits(v), src_lane, width));
}
template <typename T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  using namespace ::cuda_sim;
  return from_bits<T>(
      warp_collective(WarpOp::ShflUp, mask, to_bits(v), static_cast<int>(delta), width));
}
template <typename T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  using namespace ::cuda_sim;
  return from_bits<T>(
      warp_collective(WarpOp::ShflDown, mask, to_bits(v), static_cast<int>(delta), width));
}
template <typename T>
inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
  using namespace ::cuda_sim;
  return from_bits<T>(warp_collective(WarpOp::ShflXor, mask, to_bits(v), lane_mask, width));
}
inline unsigned __ballot_sync(unsigned mask, int pred) {
  return static_cast<unsigned>(
      ::cuda_sim::warp_collective(::cuda_sim::WarpOp::Ballot, mask, pred != 0, 0, 32));
}
inline int __any_sync(unsigned mask, int pred) {
  return static_cast<int>(
      ::cuda_sim::warp_collective(::cuda_sim::WarpOp::Any, mask, pred != 0, 0, 32));
}
inline int __all_sync(unsigned mask, int pred) {
  return static_cast<int>(
      ::cuda_sim::warp_collective(::cuda_sim::WarpOp::All, mask, pred != 0, 0, 32));
}

// ---- atomics: return the old value, as CUDA's ----
template <typename T>
inline T sim_atomic_fetch_add(T* p, T v) {
  if constexpr (std::is_integral_v<T>) {
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
  } else {
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    auto* word = reinterpret_cast<Bits*>(p);
    Bits old = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
      T cur;
      std::memcpy(&cur, &old, sizeof(T));
      const T sum = cur + v;
      Bits next;
      std::memcpy(&next, &sum, sizeof(T));
      if (__atomic_compare_exchange_n(word, &old, next, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return cur;
    }
  }
}
inline int atomicAdd(int* p, int v) {
  return sim_atomic_fetch_add(p, v);
}
inline unsigned atomicAdd(unsigned* p, unsigned v) {
  return sim_atomic_fetch_add(p, v);
}
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return sim_atomic_fetch_add(p, v);
}
inline float atomicAdd(float* p, float v) {
  return sim_atomic_fetch_add(p, v);
}
inline double atomicAdd(double* p, double v) {
  return sim_atomic_fetch_add(p, v);
}
template <typename T>
inline T sim_atomic_cas(T* p, T compare, T value) {
  __atomic_compare_exchange_n(p, &compare, value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare;  // the old value either way
}
inline int atomicCAS(int* p, int c, int v) {
  return sim_atomic_cas(p, c, v);
}
inline unsigned atomicCAS(unsigned* p, unsigned c, unsigned v) {
  return sim_atomic_cas(p, c, v);
}
inline unsigned long long atomicCAS(unsigned long long* p, unsigned long long c,
                                    unsigned long long v) {
  return sim_atomic_cas(p, c, v);
}
inline unsigned short atomicCAS(unsigned short* p, unsigned short c, unsigned short v) {
  return sim_atomic_cas(p, c, v);
}
inline int atomicExch(int* p, int v) {
  return __atomic_exchange_n(p, v, __ATOMIC_RELAXED);
}
inline unsigned atomicExch(unsigned* p, unsigned v) {
  return __atomic_exchange_n(p, v, __ATOMIC_RELAXED);
}
inline int atomicMax(int* p, int v) {
  int old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (old < v &&
         !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
inline int atomicMin(int* p, int v) {
  int old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (old > v &&
         !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}

// ---- intrinsics (round-to-nearest operations are never contracted on the host) ----
inline unsigned __float_as_uint(float f) {
  return ::cuda_sim::from_bits<unsigned>(::cuda_sim::to_bits(f));
}
inline float __uint_as_float(unsigned u) {
  return ::cuda_sim::from_bits<float>(u);
}
inline long long __double_as_longlong(double d) {
  return ::cuda_sim::from_bits<long long>(::cuda_sim::to_bits(d));
}
inline double __longlong_as_double(long long v) {
  return ::cuda_sim::from_bits<double>(static_cast<uint64_t>(v));
}
inline float __fadd_rn(float a, float b) {
  return a + b;
}
inline float __fmul_rn(float a, float b) {
  return a * b;
}
inline double __dadd_rn(double a, double b) {
  return a + b;
}
inline double __dmul_rn(double a, double b) {
  return a * b;
}
inline float __expf(float x) {
  return ::expf(x);
}
inline float __logf(float x) {
  return ::logf(x);
}
inline float rsqrtf(float x) {
  return 1.0f / ::sqrtf(x);
}
inline int __popc(unsigned x) {
  return __builtin_popcount(x);
}
inline int __ffs(int x) {
  return __builtin_ffs(x);
}
template <typename T>
inline T __ldg(const T* p) {
  return *p;
}
