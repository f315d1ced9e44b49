// Scan family on the CPU: cumsum and cumprod along the middle dim of [outer, D, inner], one
// running accumulator per (outer, inner) line, lines split across OpenMP threads.
#include <algorithm>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "kernel_math/scan_acc.h"

namespace ember::cpu {

void CpuBackend::scan(ScanOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t D,
                      int64_t inner) {
  if (outer * D * inner == 0) return;
  EMBER_DISPATCH_ALL(in.dtype(), "scan", [&] {
    using A = scan_acc_t<scalar_t>;
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    const A identity = op == ScanOp::Sum ? A(0) : A(1);
    parallel_for(outer, D * inner, [&](int64_t begin, int64_t end) {
      // inner accumulators walk D together, so every read stays contiguous
      std::vector<A> acc(static_cast<size_t>(inner));
      for (int64_t o = begin; o < end; ++o) {
        std::fill(acc.begin(), acc.end(), identity);
        for (int64_t d = 0; d < D; ++d) {
          const int64_t base = (o * D + d) * inner;
          for (int64_t i = 0; i < inner; ++i) {
            acc[i] = scan_combine<A>(op, acc[i], static_cast<A>(x[base + i]));
            y[base + i] = static_cast<scalar_t>(acc[i]);
          }
        }
      }
    });
  });
}

}  // namespace ember::cpu
