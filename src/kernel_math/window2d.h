#pragma once
// The geometry of 2-D sliding windows (convolution's im2col/col2im and max pooling), and the
// per-window math both backends run: compiled by g++ and nvcc (EMBER_HD) so the CPU tests check
// the arithmetic the GPU kernels use.
//
// Layouts (all contiguous): the input is [N, C, H, W]; the columns of im2col are [N, K, L] as
// PyTorch's unfold makes them, with K = C * kh * kw window elements ordered (c, i, j) and
// L = out_h * out_w window positions, so weight [O, K] @ cols[n] is sample n's convolution,
// already in NCHW order. Pooling sees every plane on its own: [P, H, W] with channels = 1.
#include <cstdint>

#include "ember/macros.h"

namespace ember {

struct Window2d {
  int64_t channels, height, width;
  int64_t kh, kw;  // kernel
  int64_t sh, sw;  // stride
  int64_t ph, pw;  // padding before (top, left); the window may also run past the bottom/right
  int64_t dh, dw;  // dilation
  int64_t out_h, out_w;

  EMBER_HD int64_t positions() const { return out_h * out_w; }     // L
  EMBER_HD int64_t columns() const { return channels * kh * kw; }  // K
  EMBER_HD int64_t plane() const { return height * width; }        // H * W
  EMBER_HD int64_t row_of(int64_t oh, int64_t i) const { return oh * sh - ph + i * dh; }
  EMBER_HD int64_t col_of(int64_t ow, int64_t j) const { return ow * sw - pw + j * dw; }
};

// Sum of the column entries that im2col copied from input element (c, h, w) of one sample
// (`cols` points at that sample's [K, L] block): col2im written as a gather, so every input
// element is computed by one thread without atomics.
template <typename T, typename Acc>
EMBER_HD_INLINE Acc col2im_sum(const Window2d& g, const T* cols, int64_t c, int64_t h, int64_t w) {
  Acc sum = Acc(0);
  const int64_t L = g.positions();
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t th = h + g.ph - i * g.dh;  // oh * sh when row i of window oh covers h
    if (th < 0 || th % g.sh != 0 || th / g.sh >= g.out_h) continue;
    const int64_t oh = th / g.sh;
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t tw = w + g.pw - j * g.dw;
      if (tw < 0 || tw % g.sw != 0 || tw / g.sw >= g.out_w) continue;
      const int64_t l = oh * g.out_w + tw / g.sw;
      sum += static_cast<Acc>(cols[((c * g.kh + i) * g.kw + j) * L + l]);
    }
  }
  return sum;
}

// The flat position h * W + w of the maximum of window (oh, ow) over one [H, W] plane, or -1
// when the window covers only padding. Padding never wins; NaN does (a later NaN replaces an
// earlier one) and ties keep the first maximum, exactly as PyTorch's max_pool2d chooses.
// The comparisons are written as selects so random data costs no branch mispredictions.
template <typename T, typename Acc>
EMBER_HD_INLINE int64_t window_argmax(const Window2d& g, const T* plane, int64_t oh, int64_t ow) {
  int64_t h0 = g.row_of(oh, 0), w0 = g.col_of(ow, 0);
  const int64_t h1 = h0 + (g.kh - 1) * g.dh + 1 < g.height ? h0 + (g.kh - 1) * g.dh + 1 : g.height;
  const int64_t w1 = w0 + (g.kw - 1) * g.dw + 1 < g.width ? w0 + (g.kw - 1) * g.dw + 1 : g.width;
  while (h0 < 0) h0 += g.dh;  // first row and column inside the input
  while (w0 < 0) w0 += g.dw;
  if (h0 >= h1 || w0 >= w1) return -1;
  int64_t best = h0 * g.width + w0;
  Acc best_value = static_cast<Acc>(plane[best]);
  for (int64_t h = h0; h < h1; h += g.dh) {
    for (int64_t w = w0; w < w1; w += g.dw) {
      const Acc v = static_cast<Acc>(plane[h * g.width + w]);
      const bool take = (v > best_value) | (v != v);     // v != v: NaN
      const int64_t mask = -static_cast<int64_t>(take);  // all ones when taken
      best ^= (best ^ (h * g.width + w)) & mask;
      best_value = take ? v : best_value;
    }
  }
  return best;
}

}  // namespace ember
