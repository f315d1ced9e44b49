#pragma once
// Sliding-window ops behind convolution and pooling (internal). im2col/col2im and max pooling
// are backend kernels (core/window2d.h); adaptive pooling, whose windows vary in size, gathers
// through an index table with index_select instead.
#include <cstdint>
#include <tuple>
#include <vector>

#include "core/window2d.h"
#include "ember/tensor.h"

namespace ember::nn::detail {

// Output size of a pooling/convolution dimension, with PyTorch's ceil_mode rule.
int64_t window_output_size(int64_t in, int64_t kernel, int64_t pad_before, int64_t pad_total,
                           int64_t stride, int64_t dilation, bool ceil_mode);

// Columns [N, K, L] of x [N, C, H, W] (g.channels == C). Differentiable: the gradient is
// col2im_columns, whose gradient is im2col_columns again (so double backward works).
Tensor im2col_columns(const Tensor& x, const Window2d& g);
// [N, C, H, W] whose elements are the sums of the column entries taken from them.
Tensor col2im_columns(const Tensor& cols, const Window2d& g);

// The maximum of every window of x's planes ([P, H, W], g.channels == 1) and its flat position
// h * W + w, both [P, out_h, out_w]. The values are differentiable (as a gather).
std::tuple<Tensor, Tensor> max_pool_planes(const Tensor& planes, const Window2d& g);

// Same as window tables for adaptive pooling: output (oh, ow) covers [floor(oh*H/OH),
// ceil((oh+1)*H/OH)) and likewise in width; rows are padded to the largest window with the slot
// H*W. Also returns each window's size.
Tensor adaptive_window_index(int64_t height, int64_t width, int64_t out_h, int64_t out_w,
                             Device device, std::vector<double>* window_sizes);
// Gathers [B, L, K] from `flat` [B, S] through `index` (values in [0, S], S = padding slot).
Tensor gather_windows(const Tensor& flat, const Tensor& index, int64_t L, int64_t K,
                      double pad_value);

}  // namespace ember::nn::detail
