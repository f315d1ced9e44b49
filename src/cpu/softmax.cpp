// Softmax and log_softmax on the CPU: one pass set per row (core/softmax_row.h), rows in
// parallel. A row of the last dim is contiguous; otherwise its elements are `inner` apart.
// Contiguous rows take the vector kernel (cpu/vec_math.h) when the CPU has one.
#include <vector>

#include "core/dispatch.h"
#include "core/softmax_row.h"
#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "cpu/vec_math.h"

namespace ember::cpu {
namespace {

// Rows of the last dim with the vector kernel; 16-bit rows through a float row buffer, rounded
// once on the way out, as the scalar row math does.
template <typename scalar_t>
void softmax_contiguous_rows(VecSoftmaxFn<acc_t<scalar_t>> f, scalar_t* y, const scalar_t* x,
                             int64_t rows, int64_t D, bool log_space) {
  using Acc = acc_t<scalar_t>;
  parallel_for(rows, D * 4, [&](int64_t begin, int64_t end) {
    if constexpr (std::is_same_v<scalar_t, Acc>) {
      for (int64_t r = begin; r < end; ++r) f(y + r * D, x + r * D, D, log_space);
    } else {
      std::vector<Acc> buf(static_cast<size_t>(D));
      for (int64_t r = begin; r < end; ++r) {
        for (int64_t i = 0; i < D; ++i) buf[i] = static_cast<Acc>(x[r * D + i]);
        f(buf.data(), buf.data(), D, log_space);
        for (int64_t i = 0; i < D; ++i) y[r * D + i] = static_cast<scalar_t>(buf[i]);
      }
    }
  });
}

// The gradient of rows of the last dim with the vector kernel; 16-bit rows through float buffers.
template <typename scalar_t>
void softmax_backward_contiguous_rows(VecSoftmaxBackwardFn<acc_t<scalar_t>> f, scalar_t* gx,
                                      const scalar_t* g, const scalar_t* y, int64_t rows, int64_t D,
                                      bool log_space) {
  using Acc = acc_t<scalar_t>;
  parallel_for(rows, D * 3, [&](int64_t begin, int64_t end) {
    if constexpr (std::is_same_v<scalar_t, Acc>) {
      for (int64_t r = begin; r < end; ++r) f(gx + r * D, g + r * D, y + r * D, D, log_space);
    } else {
      std::vector<Acc> gb(static_cast<size_t>(D)), yb(static_cast<size_t>(D));
      for (int64_t r = begin; r < end; ++r) {
        for (int64_t i = 0; i < D; ++i) {
          gb[i] = static_cast<Acc>(g[r * D + i]);
          yb[i] = static_cast<Acc>(y[r * D + i]);
        }
        f(gb.data(), gb.data(), yb.data(), D, log_space);
        for (int64_t i = 0; i < D; ++i) gx[r * D + i] = static_cast<scalar_t>(gb[i]);
      }
    }
  });
}

}  // namespace

void CpuBackend::softmax(const Tensor& out, const Tensor& in, int64_t outer, int64_t D,
                         int64_t inner, bool log_space) {
  EMBER_DISPATCH_FLOATING(in.dtype(), log_space ? "log_softmax" : "softmax", [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    const VecMathKernels* k = vec_math();
    if (inner == 1 && k) {
      softmax_contiguous_rows<scalar_t>(k->softmax<acc_t<scalar_t>>(), y, x, outer, D, log_space);
      return;
    }
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
  EMBER_DISPATCH_FLOATING(
      out.dtype(), log_space ? "log_softmax_backward" : "softmax_backward", [&] {
        const scalar_t* g = grad_out.data_ptr<scalar_t>();
        const scalar_t* y = out.data_ptr<scalar_t>();
        scalar_t* gx = grad_in.data_ptr<scalar_t>();
        const VecMathKernels* k = vec_math();
        if (inner == 1 && k) {
          softmax_backward_contiguous_rows<scalar_t>(k->softmax_backward<acc_t<scalar_t>>(), gx, g,
                                                     y, outer, D, log_space);
          return;
        }
        parallel_for(outer * inner, D * 3, [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            const int64_t base = (r / inner) * D * inner + r % inner;
            softmax_backward_row<scalar_t, acc_t<scalar_t>>(gx + base, g + base, y + base, D, inner,
                                                            log_space);
          }
        });
      });
}

}  // namespace ember::cpu
