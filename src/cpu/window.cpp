// Sliding windows on the CPU: im2col, col2im and max pooling over 2-D and 3-D inputs
// (kernel_math/window.h has the layouts; a 2-D input is a volume of depth 1). Each parallelises
// over independent rows or planes, so results never depend on the thread count.
#include <math.h>

#include <algorithm>
#include <climits>
#include <type_traits>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "kernel_math/dispatch.h"

namespace ember::cpu {
namespace {

// For kernel column j, the output columns [lo, hi) whose input column lies inside the width
// (col_of grows with ow, so they form one run); outside it a window reads padding.
struct InsideRun {
  int64_t lo, hi;
};
std::vector<InsideRun> inside_runs(const Window& g) {
  std::vector<InsideRun> runs(static_cast<size_t>(g.kw));
  for (int64_t j = 0; j < g.kw; ++j) {
    int64_t lo = 0, hi = g.out_w;
    while (lo < hi && g.col_of(lo, j) < 0) ++lo;
    while (hi > lo && g.col_of(hi - 1, j) >= g.width) --hi;
    runs[j] = {lo, hi};
  }
  return runs;
}

// One item is one row (n, k) of the columns: for each output row, a (strided) copy of an input
// row segment, with zeros where the window covers padding.
template <typename T>
void im2col_kernel(T* cols, const T* in, const Window& g, int64_t batch) {
  const int64_t K = g.columns(), L = g.positions(), volume = g.plane();
  const std::vector<InsideRun> runs = inside_runs(g);
  parallel_for(batch * K, L, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t n = r / K, k = r % K;
      const int64_t j = k % g.kw, i = (k / g.kw) % g.kh, a = (k / (g.kw * g.kh)) % g.kd;
      const int64_t c = k / (g.kw * g.kh * g.kd);
      const T* plane = in + (n * g.channels + c) * volume;
      const InsideRun run = runs[j];
      const int64_t shift = g.col_of(0, j);  // input column read by output column 0
      T* dst = cols + r * L;
      for (int64_t od = 0; od < g.out_d; ++od) {
        const int64_t d = g.depth_of(od, a);
        const bool layer_inside = d >= 0 && d < g.depth;
        for (int64_t oh = 0; oh < g.out_h; ++oh, dst += g.out_w) {
          const int64_t h = g.row_of(oh, i);
          if (!layer_inside || h < 0 || h >= g.height || run.lo >= run.hi) {
            std::fill(dst, dst + g.out_w, T(0.0f));
            continue;
          }
          const T* row = plane + (d * g.height + h) * g.width;
          std::fill(dst, dst + run.lo, T(0.0f));
          if (g.sw == 1) {
            std::copy(row + shift + run.lo, row + shift + run.hi, dst + run.lo);
          } else {
            for (int64_t ow = run.lo; ow < run.hi; ++ow) dst[ow] = row[shift + ow * g.sw];
          }
          std::fill(dst + run.hi, dst + g.out_w, T(0.0f));
        }
      }
    }
  });
}

// Scatter form, one (sample, channel) plane per item: the plane's kd * kh * kw column rows are
// read in order and added into it, which is cheaper on the CPU than col2im_sum's divisions and
// adds in the same order for any thread count.
template <typename T>
void col2im_kernel(T* out, const T* cols, const Window& g, int64_t batch) {
  using Acc = acc_t<T>;
  const int64_t L = g.positions(), HW = g.plane(), window = g.kd * g.kh * g.kw;
  const std::vector<InsideRun> runs = inside_runs(g);
  parallel_for(batch * g.channels, window * L, [&](int64_t begin, int64_t end) {
    std::vector<Acc> buffer(std::is_same_v<T, Acc> ? 0 : static_cast<size_t>(HW));
    for (int64_t p = begin; p < end; ++p) {
      Acc* acc;
      if constexpr (std::is_same_v<T, Acc>) {
        acc = out + p * HW;  // accumulate in place
      } else {
        acc = buffer.data();
      }
      std::fill(acc, acc + HW, Acc(0));
      const T* src = cols + p * window * L;  // rows (c, a, i, j) of sample n = p / C, channel c
      for (int64_t a = 0; a < g.kd; ++a) {
        for (int64_t i = 0; i < g.kh; ++i) {
          for (int64_t j = 0; j < g.kw; ++j, src += L) {
            const InsideRun run = runs[j];
            if (run.lo >= run.hi) continue;
            const int64_t shift = g.col_of(0, j);
            for (int64_t od = 0; od < g.out_d; ++od) {
              const int64_t d = g.depth_of(od, a);
              if (d < 0 || d >= g.depth) continue;
              for (int64_t oh = 0; oh < g.out_h; ++oh) {
                const int64_t h = g.row_of(oh, i);
                if (h < 0 || h >= g.height) continue;
                const T* v = src + (od * g.out_h + oh) * g.out_w;
                Acc* row = acc + (d * g.height + h) * g.width;
                if (g.sw == 1) {
                  Acc* at = row + shift + run.lo;  // input column of run.lo
                  const T* w = v + run.lo;
                  for (int64_t e = 0; e < run.hi - run.lo; ++e) at[e] += static_cast<Acc>(w[e]);
                } else {
                  for (int64_t ow = run.lo; ow < run.hi; ++ow) {
                    row[shift + ow * g.sw] += static_cast<Acc>(v[ow]);
                  }
                }
              }
            }
          }
        }
      }
      if constexpr (!std::is_same_v<T, Acc>) {
        T* dst = out + p * HW;
        for (int64_t e = 0; e < HW; ++e) dst[e] = static_cast<T>(acc[e]);
      }
    }
  });
}

// 2x2 windows with stride 2 (the usual pooling) along one output row: top and bottom point at
// the two input rows of the first window. Each window's four elements are read together, so
// g++ vectorises the loop (de-interleaving loads, blends, no branch). `at` receives each
// maximum's offset within its window (0, 1, W or W + 1), chosen in PyTorch's scan order.
// 16-bit inputs are compared as float32 (exact); their values are then read at the offsets by
// the caller, so NaN payloads come through untouched.
template <typename T>
void max_pool_2x2_row(T* __restrict values, int32_t* __restrict at, const T* __restrict top,
                      const T* __restrict bottom, int64_t n, int32_t W) {
  using Acc = acc_t<T>;
  for (int64_t ow = 0; ow < n; ++ow) {
    const Acc a = static_cast<Acc>(top[2 * ow]), b = static_cast<Acc>(top[2 * ow + 1]);
    const Acc c = static_cast<Acc>(bottom[2 * ow]), d = static_cast<Acc>(bottom[2 * ow + 1]);
    Acc cur = a;
    int32_t off = 0;
    bool take = (b > cur) | (b != b);  // b != b: NaN, which wins
    cur = take ? b : cur;
    off = take ? 1 : off;
    take = (c > cur) | (c != c);
    cur = take ? c : cur;
    off = take ? W : off;
    take = (d > cur) | (d != d);
    cur = take ? d : cur;
    off = take ? W + 1 : off;
    if constexpr (std::is_same_v<T, Acc>) values[ow] = cur;
    at[ow] = off;
  }
}

// Row by row: windows that lie inside the input are reduced together, window element by window
// element, so the loop over output positions has no carried dependency and no branch (random
// data would mispredict one per element). The edges use window_argmax; both visit a window's
// elements in the same order, so the indices are the ones PyTorch picks.
template <typename T>
void max_pool_kernel(T* values, int64_t* indices, const T* in, const Window& g, int64_t planes) {
  using Acc = acc_t<T>;
  const int64_t L = g.positions(), volume = g.plane(), W = g.width;
  // Output columns [lo, hi) whose windows stay inside the width.
  int64_t lo = 0, hi = g.out_w;
  while (lo < hi && g.col_of(lo, 0) < 0) ++lo;
  while (hi > lo && g.col_of(hi - 1, g.kw - 1) >= W) --hi;
  const bool two_by_two = g.kd == 1 && g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 &&
                          g.dh == 1 && g.dw == 1 && W <= INT32_MAX;
  parallel_for(planes, L * g.kd * g.kh * g.kw, [&](int64_t begin, int64_t end) {
    std::vector<Acc> best_value(static_cast<size_t>(g.out_w));
    std::vector<int64_t> best(static_cast<size_t>(g.out_w));
    std::vector<uint8_t> seen_nan(static_cast<size_t>(g.out_w));
    std::vector<int32_t> offsets(static_cast<size_t>(g.out_w));
    for (int64_t p = begin; p < end; ++p) {
      const T* plane = in + p * volume;
      for (int64_t orow = 0; orow < g.out_d * g.out_h; ++orow) {  // output row (od, oh)
        const int64_t od = orow / g.out_h, oh = orow % g.out_h;
        T* vrow = values + p * L + orow * g.out_w;
        int64_t* irow = indices + p * L + orow * g.out_w;
        const bool rows_inside = g.row_of(oh, 0) >= 0 && g.row_of(oh, g.kh - 1) < g.height &&
                                 g.depth_of(od, 0) >= 0 && g.depth_of(od, g.kd - 1) < g.depth;
        const int64_t a = rows_inside ? lo : g.out_w, b = rows_inside ? hi : g.out_w;
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          if (ow == a) ow = b;  // the inside run is done below
          if (ow >= g.out_w) break;
          const int64_t at = window_argmax<T, Acc>(g, plane, od, oh, ow);
          irow[ow] = at;
          vrow[ow] = at >= 0 ? plane[at] : T(-INFINITY);
        }
        if (a >= b) continue;
        if (two_by_two) {
          const int64_t corner =
              (g.depth_of(od, 0) * g.height + g.row_of(oh, 0)) * W + g.col_of(a, 0);
          max_pool_2x2_row<T>(vrow + a, offsets.data(), plane + corner, plane + corner + W, b - a,
                              static_cast<int32_t>(W));
          for (int64_t ow = a; ow < b; ++ow) irow[ow] = corner + 2 * (ow - a) + offsets[ow - a];
          if constexpr (!std::is_same_v<T, Acc>) {
            for (int64_t ow = a; ow < b; ++ow) vrow[ow] = plane[irow[ow]];
          }
          continue;
        }
        // The window's rows (layer e, row i) in PyTorch's scan order.
        for (int64_t ei = 0; ei < g.kd * g.kh; ++ei) {
          const int64_t e = ei / g.kh, i = ei % g.kh;
          const int64_t h = g.depth_of(od, e) * g.height + g.row_of(oh, i);
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t offset = h * W + g.col_of(0, j);  // position of element (e, i, j) at ow 0
            if (ei == 0 && j == 0) {
              for (int64_t ow = a; ow < b; ++ow) {
                const Acc v = static_cast<Acc>(plane[offset + ow * g.sw]);
                best_value[ow] = v;
                best[ow] = offset + ow * g.sw;
                seen_nan[ow] = v != v;
              }
              continue;
            }
            // Integer masks instead of selects: the compiler turns selects into branches.
            for (int64_t ow = a; ow < b; ++ow) {
              const Acc v = static_cast<Acc>(plane[offset + ow * g.sw]);
              const bool nan = v != v;
              const bool take = ((v > best_value[ow]) & !seen_nan[ow]) | nan;
              best[ow] ^= (best[ow] ^ (offset + ow * g.sw)) & -static_cast<int64_t>(take);
              best_value[ow] = v > best_value[ow] ? v : best_value[ow];  // NaN: see seen_nan
              seen_nan[ow] |= nan;
            }
          }
        }
        for (int64_t ow = a; ow < b; ++ow) {
          irow[ow] = best[ow];
          vrow[ow] = plane[best[ow]];
        }
      }
    }
  });
}

// Each plane's indices point into the same plane, so planes run in parallel without races;
// within a plane the gradients are added in output order.
template <typename T>
void max_pool_backward_kernel(T* grad_in, const T* grad_out, const int64_t* indices,
                              const Window& g, int64_t planes) {
  using Acc = acc_t<T>;
  const int64_t L = g.positions(), HW = g.plane();  // HW: the whole plane (volume)
  parallel_for(planes, L + HW, [&](int64_t begin, int64_t end) {
    std::vector<Acc> acc(static_cast<size_t>(HW));
    for (int64_t p = begin; p < end; ++p) {
      std::fill(acc.begin(), acc.end(), Acc(0));
      const T* go = grad_out + p * L;
      const int64_t* at = indices + p * L;
      for (int64_t l = 0; l < L; ++l) acc[at[l]] += static_cast<Acc>(go[l]);
      T* dst = grad_in + p * HW;
      for (int64_t e = 0; e < HW; ++e) dst[e] = static_cast<T>(acc[e]);
    }
  });
}

}  // namespace

void CpuBackend::im2col(const Tensor& cols, const Tensor& in, const Window& g) {
  EMBER_DISPATCH_FLOATING(in.dtype(), "im2col", [&] {
    im2col_kernel(cols.data_ptr<scalar_t>(), in.data_ptr<scalar_t>(), g, in.size(0));
  });
}

void CpuBackend::col2im(const Tensor& out, const Tensor& cols, const Window& g) {
  EMBER_DISPATCH_FLOATING(cols.dtype(), "col2im", [&] {
    col2im_kernel(out.data_ptr<scalar_t>(), cols.data_ptr<scalar_t>(), g, out.size(0));
  });
}

void CpuBackend::max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& in,
                            const Window& g) {
  EMBER_DISPATCH_FLOATING(in.dtype(), "max_pool2d", [&] {
    max_pool_kernel(values.data_ptr<scalar_t>(), indices.data_ptr<int64_t>(),
                    in.data_ptr<scalar_t>(), g, in.size(0));
  });
}

void CpuBackend::max_pool2d_backward(const Tensor& grad_in, const Tensor& grad_out,
                                     const Tensor& indices, const Window& g) {
  EMBER_DISPATCH_FLOATING(grad_out.dtype(), "max_pool2d_backward", [&] {
    max_pool_backward_kernel(grad_in.data_ptr<scalar_t>(), grad_out.data_ptr<scalar_t>(),
                             indices.data_ptr<int64_t>(), g, grad_in.size(0));
  });
}

}  // namespace ember::cpu
