#pragma once
// The layout both backends' strided elementwise loops walk (src/cpu/loop.h, src/cuda/loop.cuh):
// operands broadcast against the first operand's shape (zero strides), size-1 dims dropped and
// neighbouring dims merged where every operand is contiguous across them. A plain struct, so
// CUDA kernels take it by value.
#include <array>
#include <cstdint>

#include "ember/tensor.h"

namespace ember {

constexpr int kMaxLoopDims = 16;

template <int N>
struct StridedLayout {
  int ndim = 0;
  int64_t numel = 1;
  int64_t sizes[kMaxLoopDims];
  int64_t strides[N][kMaxLoopDims];  // bytes
  char* base[N];
  // The CUDA simulator checks these against the launch's device
  // (src/cuda_sim/backend/device_launch.cuh).
  template <typename F>
  void visit_pointers(F&& f) const {
    for (int k = 0; k < N; ++k) f(static_cast<const void*>(base[k]));
  }
};

// Strides of `t` seen through the shape `sizes` (right-aligned broadcasting), in bytes.
inline void broadcast_byte_strides(const Tensor& t, IntArrayRef sizes, int64_t* out) {
  const int64_t nd = static_cast<int64_t>(sizes.size()), td = t.dim();
  const int64_t es = static_cast<int64_t>(t.element_size());
  // An empty tensor's strides are never stepped along and may be any size (empty_strided({0, 2},
  // {1, 2^62})): their byte count would overflow. Only a non-empty tensor's strides lie within
  // its storage, so only they are scaled.
  const bool empty = t.numel() == 0;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t ti = d - (nd - td);
    out[d] = (empty || ti < 0 || t.sizes()[ti] == 1) ? 0 : t.strides()[ti] * es;
  }
}

template <int N>
StridedLayout<N> make_layout(const std::array<const Tensor*, N>& ops) {
  StridedLayout<N> L;
  IntArrayRef sizes = ops[0]->sizes();
  EMBER_CHECK(sizes.size() <= kMaxLoopDims, ValueError, "tensors of more than ", kMaxLoopDims,
              " dims are not supported, got ", sizes.size());
  int64_t raw[N][kMaxLoopDims];
  for (int k = 0; k < N; ++k) {
    broadcast_byte_strides(*ops[k], sizes, raw[k]);
    L.base[k] = static_cast<char*>(ops[k]->data_ptr());
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) L.numel = 0;
    if (sizes[d] == 1) continue;
    if (L.ndim > 0) {
      const int p = L.ndim - 1;
      bool merge = true;
      for (int k = 0; k < N; ++k) merge &= (L.strides[k][p] == raw[k][d] * sizes[d]);
      if (merge) {
        L.sizes[p] *= sizes[d];
        for (int k = 0; k < N; ++k) L.strides[k][p] = raw[k][d];
        continue;
      }
    }
    L.sizes[L.ndim] = sizes[d];
    for (int k = 0; k < N; ++k) L.strides[k][L.ndim] = raw[k][d];
    ++L.ndim;
  }
  if (L.numel != 0) {
    for (int d = 0; d < L.ndim; ++d) L.numel *= L.sizes[d];
  }
  return L;
}

}  // namespace ember
