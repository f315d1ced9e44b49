#pragma once
// The geometry of sliding windows over 2-D and 3-D inputs (convolution's im2col/col2im, the
// vol2col/col2vol of 3-D convolution, and max pooling), and the per-window math both backends
// run: compiled by g++ and nvcc (EMBER_HD) so the CPU tests check the arithmetic the GPU kernels
// use. A 2-D window is a 3-D one of depth 1 (the depth fields keep their defaults).
//
// Layouts (all contiguous): the input is [N, C, D, H, W] ([N, C, H, W] when 2-D); the columns
// of im2col are [N, K, L] as PyTorch's unfold (and vol2col) makes them, with
// K = C * kd * kh * kw window elements ordered (c, a, i, j) and L = out_d * out_h * out_w window
// positions, so weight [O, K] @ cols[n] is sample n's convolution, already in NC(D)HW order.
// Pooling sees every plane (volume) on its own: [P, D, H, W] with channels = 1.
#include <cstdint>

#include "ember/macros.h"

namespace ember {

struct Window {
  int64_t channels, height, width;
  int64_t kh, kw;  // kernel
  int64_t sh, sw;  // stride
  int64_t ph, pw;  // padding before (top, left); the window may also run past the bottom/right
  int64_t dh, dw;  // dilation
  int64_t out_h, out_w;
  // The leading spatial dim of 3-D windows: size, kernel, stride, padding, dilation, output.
  int64_t depth = 1, kd = 1, sd = 1, pd = 0, dd = 1, out_d = 1;

  EMBER_HD int64_t positions() const { return out_d * out_h * out_w; }  // L
  EMBER_HD int64_t columns() const { return channels * kd * kh * kw; }  // K
  EMBER_HD int64_t plane() const { return depth * height * width; }     // D * H * W
  EMBER_HD int64_t layer() const { return height * width; }             // H * W
  EMBER_HD int64_t depth_of(int64_t od, int64_t a) const { return od * sd - pd + a * dd; }
  EMBER_HD int64_t row_of(int64_t oh, int64_t i) const { return oh * sh - ph + i * dh; }
  EMBER_HD int64_t col_of(int64_t ow, int64_t j) const { return ow * sw - pw + j * dw; }
};

// The output index o and kernel offset k of a window whose element k lands on input position x
// of one dim (o * stride - pad + k * dilation == x), or -1 when that element of no window does.
EMBER_HD_INLINE int64_t window_covering(int64_t x, int64_t k, int64_t stride, int64_t pad,
                                        int64_t dilation, int64_t out) {
  const int64_t t = x + pad - k * dilation;  // o * stride when element k of window o covers x
  if (t < 0 || t % stride != 0 || t / stride >= out) return -1;
  return t / stride;
}

// Sum of the column entries that im2col copied from input element (c, d, h, w) of one sample
// (`cols` points at that sample's [K, L] block): col2im written as a gather, so every input
// element is computed by one thread without atomics.
template <typename T, typename Acc>
EMBER_HD_INLINE Acc col2im_sum(const Window& g, const T* cols, int64_t c, int64_t d, int64_t h,
                               int64_t w) {
  Acc sum = Acc(0);
  const int64_t L = g.positions();
  for (int64_t a = 0; a < g.kd; ++a) {
    const int64_t od = window_covering(d, a, g.sd, g.pd, g.dd, g.out_d);
    if (od < 0) continue;
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t oh = window_covering(h, i, g.sh, g.ph, g.dh, g.out_h);
      if (oh < 0) continue;
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t ow = window_covering(w, j, g.sw, g.pw, g.dw, g.out_w);
        if (ow < 0) continue;
        const int64_t l = (od * g.out_h + oh) * g.out_w + ow;
        sum += static_cast<Acc>(cols[(((c * g.kd + a) * g.kh + i) * g.kw + j) * L + l]);
      }
    }
  }
  return sum;
}

// The flat position (d * H + h) * W + w of the maximum of window (od, oh, ow) over one plane, or
// -1 when the window covers only padding. Padding never wins; NaN does (a later NaN replaces an
// earlier one) and ties keep the first maximum, exactly as PyTorch's max_pool2d/3d choose.
// The comparisons are written as selects so random data costs no branch mispredictions.
template <typename T, typename Acc>
EMBER_HD_INLINE int64_t window_argmax(const Window& g, const T* plane, int64_t od, int64_t oh,
                                      int64_t ow) {
  int64_t d0 = g.depth_of(od, 0), h0 = g.row_of(oh, 0), w0 = g.col_of(ow, 0);
  const int64_t d1 = d0 + (g.kd - 1) * g.dd + 1 < g.depth ? d0 + (g.kd - 1) * g.dd + 1 : g.depth;
  const int64_t h1 = h0 + (g.kh - 1) * g.dh + 1 < g.height ? h0 + (g.kh - 1) * g.dh + 1 : g.height;
  const int64_t w1 = w0 + (g.kw - 1) * g.dw + 1 < g.width ? w0 + (g.kw - 1) * g.dw + 1 : g.width;
  while (d0 < 0) d0 += g.dd;  // first layer, row and column inside the input
  while (h0 < 0) h0 += g.dh;
  while (w0 < 0) w0 += g.dw;
  if (d0 >= d1 || h0 >= h1 || w0 >= w1) return -1;
  int64_t best = (d0 * g.height + h0) * g.width + w0;
  Acc best_value = static_cast<Acc>(plane[best]);
  for (int64_t d = d0; d < d1; d += g.dd) {
    for (int64_t h = h0; h < h1; h += g.dh) {
      const int64_t row = (d * g.height + h) * g.width;
      for (int64_t w = w0; w < w1; w += g.dw) {
        const Acc v = static_cast<Acc>(plane[row + w]);
        const bool take = (v > best_value) | (v != v);     // v != v: NaN
        const int64_t mask = -static_cast<int64_t>(take);  // all ones when taken
        best ^= (best ^ (row + w)) & mask;
        best_value = take ? v : best_value;
      }
    }
  }
  return best;
}

}  // namespace ember
