// Softmax and log_softmax on the CPU: one pass set per row (kernel_math/softmax_row.h), rows in
// parallel. A row of the last dim is contiguous; otherwise its elements are `inner` apart.
// With vector kernels (cpu/vec_math.h), rows of the last dim run one row per call, and the other
// dims run blocks of neighbouring columns, one softmax per vector lane.
#include <algorithm>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "cpu/vec_math.h"
#include "kernel_math/dispatch.h"
#include "kernel_math/softmax_row.h"

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

constexpr int64_t kColumnBlock = 64;  // columns per task: a [D, 64] block stays in cache

// Runs fn(offset, ncols) over tasks of up to kColumnBlock neighbouring columns of each [D, inner]
// slice, in parallel.
template <typename Fn>
void for_column_blocks(int64_t outer, int64_t D, int64_t inner, int64_t work_per_element,
                       const Fn& fn) {
  const int64_t blocks = (inner + kColumnBlock - 1) / kColumnBlock;
  parallel_for(outer * blocks, D * kColumnBlock * work_per_element,
               [&](int64_t begin, int64_t end) {
                 for (int64_t t = begin; t < end; ++t) {
                   const int64_t j0 = (t % blocks) * kColumnBlock;
                   fn((t / blocks) * D * inner + j0, std::min(kColumnBlock, inner - j0));
                 }
               });
}

// A [D, ncols] block whose rows are `inner` apart, as a contiguous float block (for 16-bit types).
template <typename Acc, typename T>
std::vector<Acc> gather_block(const T* src, int64_t D, int64_t inner, int64_t ncols) {
  std::vector<Acc> b(static_cast<size_t>(D * ncols));
  for (int64_t d = 0; d < D; ++d) {
    for (int64_t j = 0; j < ncols; ++j) b[d * ncols + j] = static_cast<Acc>(src[d * inner + j]);
  }
  return b;
}
template <typename T, typename Acc>
void scatter_block(T* dst, const std::vector<Acc>& b, int64_t D, int64_t inner, int64_t ncols) {
  for (int64_t d = 0; d < D; ++d) {
    for (int64_t j = 0; j < ncols; ++j) dst[d * inner + j] = static_cast<T>(b[d * ncols + j]);
  }
}

template <typename scalar_t>
void softmax_columns(VecSoftmaxColsFn<acc_t<scalar_t>> f, scalar_t* y, const scalar_t* x,
                     int64_t outer, int64_t D, int64_t inner, bool log_space) {
  using Acc = acc_t<scalar_t>;
  for_column_blocks(outer, D, inner, 4, [&](int64_t base, int64_t ncols) {
    if constexpr (std::is_same_v<scalar_t, Acc>) {
      f(y + base, x + base, D, inner, ncols, log_space);
    } else {
      std::vector<Acc> b = gather_block<Acc>(x + base, D, inner, ncols);
      f(b.data(), b.data(), D, ncols, ncols, log_space);
      scatter_block(y + base, b, D, inner, ncols);
    }
  });
}

template <typename scalar_t>
void softmax_backward_columns(VecSoftmaxBackwardColsFn<acc_t<scalar_t>> f, scalar_t* gx,
                              const scalar_t* g, const scalar_t* y, int64_t outer, int64_t D,
                              int64_t inner, bool log_space) {
  using Acc = acc_t<scalar_t>;
  for_column_blocks(outer, D, inner, 3, [&](int64_t base, int64_t ncols) {
    if constexpr (std::is_same_v<scalar_t, Acc>) {
      f(gx + base, g + base, y + base, D, inner, ncols, log_space);
    } else {
      std::vector<Acc> gb = gather_block<Acc>(g + base, D, inner, ncols);
      const std::vector<Acc> yb = gather_block<Acc>(y + base, D, inner, ncols);
      f(gb.data(), gb.data(), yb.data(), D, ncols, ncols, log_space);
      scatter_block(gx + base, gb, D, inner, ncols);
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
    if (k) {
      softmax_columns<scalar_t>(k->softmax_cols<acc_t<scalar_t>>(), y, x, outer, D, inner,
                                log_space);
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
        if (k) {
          softmax_backward_columns<scalar_t>(k->softmax_backward_cols<acc_t<scalar_t>>(), gx, g, y,
                                             outer, D, inner, log_space);
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
