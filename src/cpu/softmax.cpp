// Softmax and log_softmax on the CPU: one pass set per row (core/softmax_row.h), rows in
// parallel. A row of the last dim is contiguous; otherwise its elements are `inner` apart.
#include "core/dispatch.h"
#include "core/softmax_row.h"
#include "cpu/cpu_backend.h"
#include "cpu/loop.h"

namespace ember::cpu {

void CpuBackend::softmax(const Tensor& out, const Tensor& in, int64_t outer, int64_t D,
                         int64_t inner, bool log_space) {
  EMBER_DISPATCH_FLOATING(in.dtype(), log_space ? "log_softmax" : "softmax", [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    parallel_for(outer * inner, D * 4, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t base = (r / inner) * D * inner + r % inner;
        softmax_row<scalar_t, acc_t<scalar_t>>(y + base, x + base, D, inner, log_space);
      }
    });
  });
}

void CpuBackend::softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out,
                                  int64_t outer, int64_t D, int64_t inner, bool log_space) {
  EMBER_DISPATCH_FLOATING(out.dtype(), log_space ? "log_softmax_backward" : "softmax_backward",
                          [&] {
                            const scalar_t* g = grad_out.data_ptr<scalar_t>();
                            const scalar_t* y = out.data_ptr<scalar_t>();
                            scalar_t* gx = grad_in.data_ptr<scalar_t>();
                            parallel_for(outer * inner, D * 3, [&](int64_t begin, int64_t end) {
                              for (int64_t r = begin; r < end; ++r) {
                                const int64_t base = (r / inner) * D * inner + r % inner;
                                softmax_backward_row<scalar_t, acc_t<scalar_t>>(
                                    gx + base, g + base, y + base, D, inner, log_space);
                              }
                            });
                          });
}

}  // namespace ember::cpu
