#pragma once
// The CUDA backend's elementwise loop (the counterpart of src/cpu/loop.h), over the same
// StridedLayout (kernel_math/strided_layout.h) built on the host. launch_elementwise runs one of
// four paths (src/cuda_policy/elementwise_path.h says which and why): the Vectorized one for
// functors with a vector form (vector_form.cuh), otherwise a thread computes its operands' pointers
// from the linear index, in 32-bit arithmetic where the layout fits, and calls the functor with
// char* pointers to its elements. Launched on the current stream.
#include <array>
#include <cstdint>

#include "cuda/cuda_internal.h"
#include "cuda/launch.cuh"
#include "cuda/vector_form.cuh"
#include "cuda_policy/elementwise_path.h"
#include "kernel_math/dispatch.h"
#include "kernel_math/strided_layout.h"

namespace ember::cuda {

constexpr int kThreads = 256;

// The host-side layout (kernel_math/strided_layout.h), passed to kernels by value.
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

// Strided64: anything beyond 32 bits.
template <int N, typename F>
__global__ void __launch_bounds__(kThreads) elementwise_kernel(Layout<N> L, F f) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < L.numel;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    char* p[N];
    element_pointers<N>(L, i, p);
    f(p, i);
  }
}

// A StridedLayout whose numel and byte offsets fit in 32 bits (Linear32 and Strided32 paths).
template <int N>
struct Layout32 {
  int ndim;
  uint32_t numel;
  uint32_t sizes[kMaxLoopDims];
  int32_t strides[N][kMaxLoopDims];  // bytes
  char* base[N];
  template <typename F>
  void visit_pointers(F&& f) const {
    for (int k = 0; k < N; ++k) f(static_cast<const void*>(base[k]));
  }
};

template <int N>
Layout32<N> to_layout_32(const Layout<N>& L) {
  Layout32<N> r{};
  r.ndim = L.ndim;
  r.numel = static_cast<uint32_t>(L.numel);
  for (int d = 0; d < L.ndim; ++d) {
    r.sizes[d] = static_cast<uint32_t>(L.sizes[d]);
    for (int k = 0; k < N; ++k) r.strides[k][d] = static_cast<int32_t>(L.strides[k][d]);
  }
  for (int k = 0; k < N; ++k) r.base[k] = L.base[k];
  return r;
}

template <int N>
__device__ __forceinline__ void element_pointers_32(const Layout32<N>& L, uint32_t i, char** p) {
  int32_t offset[N];
  if (L.ndim == 1) {  // Linear32: no division at all
#pragma unroll
    for (int k = 0; k < N; ++k) offset[k] = static_cast<int32_t>(i) * L.strides[k][0];
  } else {
#pragma unroll
    for (int k = 0; k < N; ++k) offset[k] = 0;
    for (int d = L.ndim - 1; d >= 0; --d) {
      const uint32_t q = i / L.sizes[d];
      const auto idx = static_cast<int32_t>(i - q * L.sizes[d]);
      i = q;
#pragma unroll
      for (int k = 0; k < N; ++k) offset[k] += idx * L.strides[k][d];
    }
  }
#pragma unroll
  for (int k = 0; k < N; ++k) p[k] = L.base[k] + offset[k];
}

template <int N, typename F>
__global__ void __launch_bounds__(kThreads) elementwise_kernel_32(Layout32<N> L, F f) {
  // numel < 2^31 and the grid has at most 2^28 threads: i + step never wraps.
  const uint32_t step = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < L.numel; i += step) {
    char* p[N];
    element_pointers_32<N>(L, i, p);
    f(p, static_cast<int64_t>(i));
  }
}

// Vector j of every operand per thread and iteration, then the last numel % width elements one
// per thread through the functor's scalar form.
template <int N, typename F>
__global__ void __launch_bounds__(kThreads) vectorized_kernel(LinearLayout<N> L, F f) {
  using Types = typename F::operand_types;
  constexpr uint32_t V = Types::kWidth;
  const uint32_t vectors = L.numel / V;
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t step = gridDim.x * blockDim.x;
  for (uint32_t j = tid; j < vectors; j += step) Types::apply(f, L, j);
  const uint32_t i = vectors * V + tid;
  if (i < L.numel) {
    char* p[N];
#pragma unroll
    for (int k = 0; k < N; ++k) p[k] = L.base[k] + static_cast<int64_t>(i) * L.stride[k];
    f(p, static_cast<int64_t>(i));
  }
}

inline unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < (int64_t(1) << 20) ? blocks : (int64_t(1) << 20));
}

// The path launch_elementwise takes for functor F over L (the test hook may slow it down).
template <int N, typename F>
cuda_policy::ElementwisePath elementwise_path_for(const Layout<N>& L) {
  cuda_policy::VectorForm<N> form;
  if constexpr (has_vector_form<F>::value) {
    static_assert(F::operand_types::kCount == N, "operand_types must list every operand");
    form = F::operand_types::host_form();
  }
  return cuda_policy::slower_path(cuda_policy::select_elementwise_path(L, form),
                                  cuda_policy::fastest_elementwise_path());
}

// Runs f(char* ptrs[N], int64_t linear_index) for every element of ops[0]'s shape (or, on the
// Vectorized path, f.value(...) for whole vectors of them).
template <int N, typename F>
void launch_elementwise(const std::array<const Tensor*, N>& ops, const F& f) {
  using cuda_policy::ElementwisePath;
  Layout<N> L = make_layout<N>(ops);
  if (L.numel == 0) return;
  const int device = ops[0]->device().index();
  DeviceGuard guard(device);
  cudaStream_t stream = detail::current_cuda_stream(device);
  const ElementwisePath path = elementwise_path_for<N, F>(L);
  if constexpr (has_vector_form<F>::value) {
    if (path == ElementwisePath::Vectorized) {
      LinearLayout<N> V{};
      V.numel = static_cast<uint32_t>(L.numel);
      for (int k = 0; k < N; ++k) {
        V.stride[k] = L.ndim == 1 ? L.strides[k][0] : 0;
        V.base[k] = L.base[k];
      }
      const int64_t vectors = L.numel / F::operand_types::kWidth;
      launch_kernel(EMBER_KERNEL(vectorized_kernel<N, F>).template about<F>(),
                    {grid_for(vectors > 0 ? vectors : L.numel), kThreads, 0, stream}, V, f);
      EMBER_CUDA_CHECK(cudaGetLastError());
      return;
    }
  }
  if (path == ElementwisePath::Strided64) {
    launch_kernel(EMBER_KERNEL(elementwise_kernel<N, F>).template about<F>(),
                  {grid_for(L.numel), kThreads, 0, stream}, L, f);
  } else {
    launch_kernel(EMBER_KERNEL(elementwise_kernel_32<N, F>).template about<F>(),
                  {grid_for(L.numel), kThreads, 0, stream}, to_layout_32<N>(L), f);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

// Loads and stores through the compute type: half and bfloat16 are computed in float.
template <typename T>
__device__ __forceinline__ acc_t<T> load_as_acc(const char* p) {
  return static_cast<acc_t<T>>(*reinterpret_cast<const T*>(p));
}

}  // namespace ember::cuda
