#pragma once
// Combining one value per thread into one value per warp or per group of warps, in a fixed order
// (so a float sum gives the same bits on every run): shuffles inside a warp, then shared memory
// across the warps of a group. Used by the reductions (reduce_kernels.cuh, arg_reduce.cu) and softmax
// (softmax.cu).
#include <type_traits>

#include "cuda/launch.cuh"
#include "cuda/loop.cuh"

namespace ember::cuda {

constexpr int kWarpSize = 32;

// __shfl_down_sync for every accumulation type: CUDA's overloads start at 32-bit integers, so
// bool and 8/16-bit integers travel as int.
template <typename T>
__device__ __forceinline__ T shfl_down(T v, unsigned delta) {
  if constexpr (sizeof(T) < 4) {
    return static_cast<T>(__shfl_down_sync(0xffffffffu, static_cast<int>(v), delta));
  } else {
    return __shfl_down_sync(0xffffffffu, v, delta);
  }
}

// Lane 0 gets combine(v_0, v_1, ..., v_31) as a tree; the other lanes get partial values. Every
// lane of the warp must call it.
template <typename T, typename Combine>
__device__ __forceinline__ T warp_combine(T v, Combine combine) {
  for (unsigned offset = kWarpSize / 2; offset > 0; offset /= 2) {
    v = combine(v, shfl_down(v, offset));
  }
  return v;
}

// The linear index of the calling thread in its block.
__device__ __forceinline__ int linear_thread_index() {
  return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

// Groups of blockDim.x threads (a multiple of 32, at most 1024) along x, one group per y: thread
// x == 0 of each group gets the combination of its group's values, warp results in warp order.
// `scratch` holds one T per warp of the block. Every thread of the block must call it.
template <typename T, typename Combine>
__device__ __forceinline__ T group_combine(T v, T* scratch, Combine combine) {
  v = warp_combine(v, combine);
  const int warps_per_group = static_cast<int>(blockDim.x) / kWarpSize;
  if (warps_per_group == 1) return v;
  const int warp = linear_thread_index() / kWarpSize;
  if (linear_thread_index() % kWarpSize == 0) scratch[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < warps_per_group; ++w) v = combine(v, scratch[warp + w]);
  }
  __syncthreads();  // scratch may be written again right after
  return v;
}

// Vectors of 16 bytes of T (one 128-bit load or store); N elements.
template <typename T>
constexpr int kPackSize = sizeof(T) >= 16 ? 1 : static_cast<int>(16 / sizeof(T));
template <typename T>
struct alignas(16) Pack {
  T v[kPackSize<T>];
};

// Shared scratch for group_combine in a kThreads block: one value per warp. Raw bytes, so a
// __shared__ instance needs no constructor for types that have one.
template <typename T>
struct WarpScratch {
  __align__(8) unsigned char raw[(kThreads / kWarpSize) * sizeof(T)];
  __device__ T* get() { return reinterpret_cast<T*>(raw); }
};

}  // namespace ember::cuda
