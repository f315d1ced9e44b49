// Sort family on the CPU: each row of a contiguous [rows, D] tensor sorted by
// kernel_math/sort_order.h's order (stable, NaN greatest), rows split across OpenMP threads.
#include <algorithm>
#include <numeric>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "kernel_math/sort_order.h"

namespace ember::cpu {

void CpuBackend::sort(const Tensor& values, const Tensor& indices, const Tensor& in,
                      bool descending) {
  const int64_t D = in.dim() == 0 ? 1 : in.size(-1);
  if (in.numel() == 0 || D == 0) return;
  const int64_t rows = in.numel() / D;
  EMBER_DISPATCH_ALL(in.dtype(), "sort", [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* v = values.data_ptr<scalar_t>();
    int64_t* idx = indices.data_ptr<int64_t>();
    parallel_for(rows, D, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const scalar_t* xr = x + r * D;
        int64_t* ir = idx + r * D;
        std::iota(ir, ir + D, int64_t(0));
        std::sort(ir, ir + D, [&](int64_t i, int64_t j) {
          return sorts_before(xr[i], i, xr[j], j, descending);
        });
        scalar_t* vr = v + r * D;
        for (int64_t k = 0; k < D; ++k) vr[k] = xr[ir[k]];
      }
    });
  });
}

}  // namespace ember::cpu
