// Sliding windows on the CPU: im2col, col2im and max pooling (core/window2d.h has the layouts).
// Each parallelises over independent rows or planes, so results never depend on the thread count.
#include <math.h>

#include <vector>

#include "core/dispatch.h"
#include "cpu/cpu_backend.h"
#include "cpu/loop.h"

namespace ember::cpu {
namespace {

template <typename T>
void im2col_kernel(T* cols, const T* in, const Window2d& g, int64_t batch) {
  const int64_t K = g.columns(), HW = g.plane();
  // One item is one row of output positions (n, oh): out_w * K column entries.
  parallel_for(batch * g.out_h, g.out_w * K, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t n = r / g.out_h, oh = r % g.out_h;
      const T* x = in + n * g.channels * HW;
      T* dst = cols + r * g.out_w * K;
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        for (int64_t c = 0; c < g.channels; ++c) {
          for (int64_t i = 0; i < g.kh; ++i) {
            const int64_t h = g.row_of(oh, i);
            if (h < 0 || h >= g.height) {
              for (int64_t j = 0; j < g.kw; ++j) *dst++ = T(0.0f);
              continue;
            }
            const T* src = x + c * HW + h * g.width;
            for (int64_t j = 0; j < g.kw; ++j) {
              const int64_t w = g.col_of(ow, j);
              *dst++ = (w >= 0 && w < g.width) ? src[w] : T(0.0f);
            }
          }
        }
      }
    }
  });
}

// Scatter form, one (sample, channel) plane per item: its column entries are read in order and
// added into a plane-sized accumulator, which is cheaper here than col2im_sum's divisions.
template <typename T>
void col2im_kernel(T* out, const T* cols, const Window2d& g, int64_t batch) {
  using Acc = acc_t<T>;
  const int64_t K = g.columns(), HW = g.plane(), L = g.positions();
  parallel_for(batch * g.channels, L * g.kh * g.kw, [&](int64_t begin, int64_t end) {
    std::vector<Acc> acc(static_cast<size_t>(HW));
    for (int64_t p = begin; p < end; ++p) {
      const int64_t n = p / g.channels, c = p % g.channels;
      std::fill(acc.begin(), acc.end(), Acc(0));
      const T* src = cols + n * L * K + c * g.kh * g.kw;
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          const T* window = src + (oh * g.out_w + ow) * K;
          for (int64_t i = 0; i < g.kh; ++i) {
            const int64_t h = g.row_of(oh, i);
            if (h < 0 || h >= g.height) continue;
            for (int64_t j = 0; j < g.kw; ++j) {
              const int64_t w = g.col_of(ow, j);
              if (w >= 0 && w < g.width)
                acc[h * g.width + w] += static_cast<Acc>(window[i * g.kw + j]);
            }
          }
        }
      }
      T* dst = out + p * HW;
      for (int64_t e = 0; e < HW; ++e) dst[e] = static_cast<T>(acc[e]);
    }
  });
}

template <typename T>
void max_pool_kernel(T* values, int64_t* indices, const T* in, const Window2d& g, int64_t planes) {
  const int64_t L = g.positions(), HW = g.plane();
  parallel_for(planes, L * g.kh * g.kw, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const T* plane = in + p * HW;
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          const int64_t at = window_argmax<T, acc_t<T>>(g, plane, oh, ow);
          const int64_t l = p * L + oh * g.out_w + ow;
          indices[l] = at;
          values[l] = at >= 0 ? plane[at] : T(-INFINITY);
        }
      }
    }
  });
}

}  // namespace

void CpuBackend::im2col(const Tensor& cols, const Tensor& in, const Window2d& g) {
  EMBER_DISPATCH_FLOATING(in.dtype(), "im2col", [&] {
    im2col_kernel(cols.data_ptr<scalar_t>(), in.data_ptr<scalar_t>(), g, in.size(0));
  });
}

void CpuBackend::col2im(const Tensor& out, const Tensor& cols, const Window2d& g) {
  EMBER_DISPATCH_FLOATING(cols.dtype(), "col2im", [&] {
    col2im_kernel(out.data_ptr<scalar_t>(), cols.data_ptr<scalar_t>(), g, out.size(0));
  });
}

void CpuBackend::max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& in,
                            const Window2d& g) {
  EMBER_DISPATCH_FLOATING(in.dtype(), "max_pool2d", [&] {
    max_pool_kernel(values.data_ptr<scalar_t>(), indices.data_ptr<int64_t>(),
                    in.data_ptr<scalar_t>(), g, in.size(0));
  });
}

}  // namespace ember::cpu
