#pragma once
// Sliding windows as an index table (internal): im2col, pooling and adaptive pooling all gather
// the elements of each output position's window from a flattened input with index_select, so
// they run on every device and get their gradients from index_select's (index_add).
#include <cstdint>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::detail {

// Geometry of a 2-D sliding window over `channels` planes of height x width.
struct WindowGeometry {
  int64_t channels, height, width;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;  // kernel, stride, padding (top/left), dilation
  int64_t out_h, out_w;
};

// Output size of a pooling/convolution dimension, with PyTorch's ceil_mode rule.
int64_t window_output_size(int64_t in, int64_t kernel, int64_t pad_before, int64_t pad_total,
                           int64_t stride, int64_t dilation, bool ceil_mode);

// Index table of L = out_h * out_w rows and K = channels * kh * kw columns (row-major, on
// `device`): entry (l, k) is the flat position c*H*W + h*W + w of window element k of output l,
// or channels*H*W (the slot of the padding value) when it falls outside the input.
Tensor window_index(const WindowGeometry& g, Device device);
// Same for adaptive pooling: output (oh, ow) covers [floor(oh*H/OH), ceil((oh+1)*H/OH)) and
// likewise in width; rows are padded to the largest window. Also returns each window's size.
Tensor adaptive_window_index(int64_t height, int64_t width, int64_t out_h, int64_t out_w,
                             Device device, std::vector<double>* window_sizes);

// Gathers [B, L, K] from `flat` [B, S] through `index` (values in [0, S], S = padding slot).
Tensor gather_windows(const Tensor& flat, const Tensor& index, int64_t L, int64_t K,
                      double pad_value);

}  // namespace ember::nn::detail
