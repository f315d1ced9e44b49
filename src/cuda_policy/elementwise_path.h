#pragma once
// Which kernel the CUDA elementwise loop (src/cuda/loop.cuh) runs for a StridedLayout. Plain C++,
// always built, so every build's tests check the choice (the kernels themselves run on simulated
// devices in CI and on a GPU when one is lent).
//
// Fastest first; each path is valid for every layout a faster one accepts:
//  - Vectorized: 1-D, each operand unit-strided (an input may also be one broadcast value, stride
//    0), its pointer aligned to a whole vector, and a functor with a vector form (vector_form.cuh):
//    each thread loads and stores `width` elements per operand with one 16-byte access of the
//    widest operand, a scalar tail finishes; 32-bit index.
//  - Linear32: 1-D (any strides): pointer = base + i * stride in 32 bits, no div/mod.
//  - Strided32: N-D: per-dim div/mod in 32 bits (a 64-bit division is many times slower).
//  - Strided64: numel or a byte offset beyond 2^31 - 1: 64-bit index and div/mod.
#include <cstdint>

#include "ember/macros.h"
#include "kernel_math/strided_layout.h"

namespace ember::cuda_policy {

enum class ElementwisePath : int { Vectorized = 0, Linear32 = 1, Strided32 = 2, Strided64 = 3 };

EMBER_API const char* to_string(ElementwisePath p);

// A functor's vector form, as the host sees it: `width` elements per thread per operand (0: the
// functor has none) and each operand's element size in bytes, output first.
template <int N>
struct VectorForm {
  int width = 0;
  int64_t elem_size[N] = {};
};

constexpr int64_t kMaxIndex32 = INT32_MAX;

// True when every operand's largest byte offset from its base fits in an int32.
template <int N>
bool byte_offsets_fit_32(const StridedLayout<N>& L) {
  for (int k = 0; k < N; ++k) {
    int64_t span = 0;
    for (int d = 0; d < L.ndim; ++d) {
      const int64_t s = L.strides[k][d] < 0 ? -L.strides[k][d] : L.strides[k][d];
      if (L.sizes[d] > 1 && s > kMaxIndex32) return false;
      span += (L.sizes[d] - 1) * s;  // each term < 2^62; stop before the sum can overflow
      if (span > kMaxIndex32) return false;
    }
  }
  return true;
}

template <int N>
bool vectorizable(const StridedLayout<N>& L, const VectorForm<N>& v) {
  if (v.width <= 0 || L.ndim > 1) return false;
  if (L.ndim == 0) return true;  // one element: the scalar tail alone
  for (int k = 0; k < N; ++k) {
    const int64_t stride = L.strides[k][0];
    // The output is written whole vectors at a time; an input may be one value read by all.
    if (k > 0 && stride == 0) continue;
    if (stride != v.elem_size[k]) return false;
    const auto vector_bytes = static_cast<uintptr_t>(v.width * v.elem_size[k]);
    if (reinterpret_cast<uintptr_t>(L.base[k]) % vector_bytes != 0) return false;
  }
  return true;
}

template <int N>
ElementwisePath select_elementwise_path(const StridedLayout<N>& L, const VectorForm<N>& v) {
  if (L.numel > kMaxIndex32) return ElementwisePath::Strided64;
  if (vectorizable(L, v)) return ElementwisePath::Vectorized;
  if (!byte_offsets_fit_32(L)) return ElementwisePath::Strided64;
  return L.ndim <= 1 ? ElementwisePath::Linear32 : ElementwisePath::Strided32;
}

// For tests: launch_elementwise takes the selected path or `p`, whichever is slower, so the
// 32- and 64-bit fallbacks run on small tensors too. Vectorized (the default) changes nothing.
EMBER_API void set_fastest_elementwise_path(ElementwisePath p);
EMBER_API ElementwisePath fastest_elementwise_path();

inline ElementwisePath slower_path(ElementwisePath a, ElementwisePath b) {
  return static_cast<int>(a) > static_cast<int>(b) ? a : b;
}

}  // namespace ember::cuda_policy
