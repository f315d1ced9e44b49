#pragma once
// Physical references, measured without any tensor library: a plain C++ streaming loop on all
// pinned threads (OpenMP) for the elementwise rows, and OpenBLAS's cblas_sgemm called directly
// for the GEMM rows. Outputs are allocated once, so these are the ceilings the library rows
// are judged against.
#include <cblas.h>
#include <omp.h>

#include <cstdlib>
#include <memory>

#include "harness.h"
#include "op_cases.h"

namespace bench {

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], FreeDeleter>;

// 64-byte aligned, first touched by the threads that will stream it.
inline Buffer make_buffer(int64_t n, float value) {
  size_t bytes = ((static_cast<size_t>(n) * sizeof(float)) + 63) & ~size_t(63);
  Buffer b(static_cast<float*>(std::aligned_alloc(64, bytes)));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) b[i] = value;
  return b;
}

// Same grain as a sensible library: threads only where they pay off.
constexpr int64_t kStreamParallelFrom = 65536;

inline void stream_add(const float* __restrict a, const float* __restrict b, float* __restrict c,
                       int64_t n) {
  if (n < kStreamParallelFrom) {
    for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

inline void reference_rows(Runner& r) {
  if (r.wants("elementwise")) {
    for (int64_t n : elementwise_sizes()) {
      Buffer a = make_buffer(n, 1.0f), b = make_buffer(n, 2.0f), c = make_buffer(n, 0.0f);
      r.time(
          "elementwise", "add_" + size_label(n), Unit::kGBps, 12.0 * n,
          [&] { stream_add(a.get(), b.get(), c.get(), n); }, "ref", "C++ loop (OpenMP)");
    }
  }
  if (r.wants("gemm")) {
    for (int64_t n : gemm_sizes()) {
      Buffer a = make_buffer(n * n, 0.5f), b = make_buffer(n * n, 0.25f), c = make_buffer(n * n, 0);
      int ni = static_cast<int>(n);
      r.time(
          "gemm", "sgemm_" + std::to_string(n), Unit::kGFLOPs, 2.0 * n * n * n,
          [&] {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0f, a.get(), ni,
                        b.get(), ni, 0.0f, c.get(), ni);
          },
          "ref", "cblas_sgemm (OpenBLAS)");
    }
  }
}

}  // namespace bench
