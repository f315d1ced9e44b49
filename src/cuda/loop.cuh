#pragma once
// The CUDA backend's one strided elementwise loop (the counterpart of src/cpu/loop.h), over the
// same StridedLayout (core/strided_layout.h) built on the host; each thread computes its operands'
// byte offsets from the linear index and calls the functor, which receives char* pointers to its
// elements. Launched on the current stream.
#include <array>

#include "core/dispatch.h"
#include "core/strided_layout.h"
#include "cuda/cuda_internal.h"
#include "cuda/launch.cuh"

namespace ember::cuda {

constexpr int kThreads = 256;

// The host-side layout (core/strided_layout.h), passed to kernels by value.
template <int N>
using Layout = StridedLayout<N>;

template <int N>
__device__ __forceinline__ void element_pointers(const Layout<N>& L, int64_t i, char** p) {
#pragma unroll
  for (int k = 0; k < N; ++k) p[k] = L.base[k];
  if (L.ndim == 1) {
#pragma unroll
    for (int k = 0; k < N; ++k) p[k] += i * L.strides[k][0];
    return;
  }
  for (int d = L.ndim - 1; d >= 0; --d) {
    const int64_t idx = i % L.sizes[d];
    i /= L.sizes[d];
#pragma unroll
    for (int k = 0; k < N; ++k) p[k] += idx * L.strides[k][d];
  }
}

template <int N, typename F>
__global__ void __launch_bounds__(kThreads) elementwise_kernel(Layout<N> L, F f) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < L.numel;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    char* p[N];
    element_pointers<N>(L, i, p);
    f(p, i);
  }
}

inline unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < (int64_t(1) << 20) ? blocks : (int64_t(1) << 20));
}

// Runs f(char* ptrs[N], int64_t linear_index) for every element of ops[0]'s shape.
template <int N, typename F>
void launch_elementwise(const std::array<const Tensor*, N>& ops, const F& f) {
  Layout<N> L = make_layout<N>(ops);
  if (L.numel == 0) return;
  const int device = ops[0]->device().index();
  DeviceGuard guard(device);
  launch_kernel(EMBER_KERNEL(elementwise_kernel<N, F>).template about<F>(),
                {grid_for(L.numel), kThreads, 0, detail::current_cuda_stream(device)}, L, f);
  EMBER_CUDA_CHECK(cudaGetLastError());
}

// Loads and stores through the compute type: half and bfloat16 are computed in float.
template <typename T>
__device__ __forceinline__ acc_t<T> load_as_acc(const char* p) {
  return static_cast<acc_t<T>>(*reinterpret_cast<const T*>(p));
}

}  // namespace ember::cuda
