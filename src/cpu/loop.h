#pragma once
// The CPU's one strided loop over a StridedLayout (kernel_math/strided_layout.h: operands broadcast
// against the first operand's shape, dims coalesced); the innermost run is handed to a kernel
// together with the byte strides of that run, so kernels can take a contiguous fast path that the
// compiler vectorises. Large loops are split across OpenMP threads.
#include <omp.h>

#include <algorithm>
#include <array>

#include "cpu/num_threads.h"
#include "ember/tensor.h"
#include "kernel_math/strided_layout.h"

namespace ember::cpu {

constexpr int64_t kParallelGrain = 32768;  // elements; below this, threads cost more than they save

// Runs kernel(char* ptrs[N], const int64_t inner_strides[N], int64_t n) over elements [begin, end).
template <int N, typename Kernel>
void run_range(const StridedLayout<N>& L, int64_t begin, int64_t end, const Kernel& kernel) {
  if (L.ndim == 0) {
    char* p[N];
    int64_t s[N];
    for (int k = 0; k < N; ++k) p[k] = L.base[k], s[k] = 0;
    if (begin < end) kernel(p, s, 1);
    return;
  }
  const int last = L.ndim - 1;
  int64_t idx[16];
  int64_t rem = begin;
  for (int d = last; d >= 0; --d) {
    idx[d] = rem % L.sizes[d];
    rem /= L.sizes[d];
  }
  int64_t inner[N];
  for (int k = 0; k < N; ++k) inner[k] = L.strides[k][last];
  int64_t pos = begin;
  while (pos < end) {
    char* p[N];
    for (int k = 0; k < N; ++k) {
      int64_t off = 0;
      for (int d = 0; d < L.ndim; ++d) off += idx[d] * L.strides[k][d];
      p[k] = L.base[k] + off;
    }
    int64_t n = std::min(L.sizes[last] - idx[last], end - pos);
    kernel(p, inner, n);
    pos += n;
    idx[last] += n;
    for (int d = last; d > 0 && idx[d] >= L.sizes[d]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
}

template <int N, typename Kernel>
void for_each(const std::array<const Tensor*, N>& ops, const Kernel& kernel,
              int64_t grain = kParallelGrain) {
  StridedLayout<N> L = make_layout<N>(ops);
  if (L.numel == 0) return;
  int threads = intra_op_threads();
  if (L.numel < grain || threads <= 1 || omp_in_parallel()) {
    run_range<N>(L, 0, L.numel, kernel);
    return;
  }
  int64_t chunks = std::min<int64_t>(threads, (L.numel + grain - 1) / grain);
#pragma omp parallel for num_threads(chunks) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t b = L.numel * c / chunks, e = L.numel * (c + 1) / chunks;
    run_range<N>(L, b, e, kernel);
  }
}

}  // namespace ember::cpu

namespace ember::cpu {

// Calls fn(begin, end) over [0, n) in at most one static chunk per thread; `work_per_item`
// (elements touched per item) decides whether the threads pay for themselves.
template <typename Fn>
void parallel_for(int64_t n, int64_t work_per_item, const Fn& fn) {
  const int threads = intra_op_threads();
  const int64_t chunks =
      std::min<int64_t>({threads, n, n * std::max<int64_t>(work_per_item, 1) / kParallelGrain});
  if (chunks <= 1 || omp_in_parallel()) {
    if (n > 0) fn(int64_t{0}, n);
    return;
  }
#pragma omp parallel for num_threads(chunks) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) fn(n * c / chunks, n * (c + 1) / chunks);
}

}  // namespace ember::cpu
