#pragma once
// Sliding-window helpers of convolution and pooling (internal). im2col/col2im and max pooling
// are backend kernels behind the front ends of ops/window_ops.h; adaptive pooling, whose windows
// vary in size, gathers through an index table with index_select instead.
#include <cstdint>
#include <vector>

#include "ember/tensor.h"
#include "kernel_math/window.h"

namespace ember::nn::detail {

// Output size of a pooling/convolution dimension, with PyTorch's ceil_mode rule.
int64_t window_output_size(int64_t in, int64_t kernel, int64_t pad_before, int64_t pad_total,
                           int64_t stride, int64_t dilation, bool ceil_mode);

// The 3-D window of one convolution or pool over [N, channels, D, H, W]: kernel, stride and
// dilation per dim (D, H, W), the padding before each dim and its total (before + after), and
// the output sizes that follow (PyTorch's ceil_mode rule).
Window volume_window(int64_t channels, const int64_t in[3], const int64_t kernel[3],
                     const int64_t stride[3], const int64_t pad_before[3],
                     const int64_t pad_total[3], const int64_t dilation[3], bool ceil_mode);

// Same as window tables for adaptive pooling: output (oh, ow) covers [floor(oh*H/OH),
// ceil((oh+1)*H/OH)) and likewise in width; rows are padded to the largest window with the slot
// H*W. Also returns each window's size.
Tensor adaptive_window_index(int64_t height, int64_t width, int64_t out_h, int64_t out_w,
                             Device device, std::vector<double>* window_sizes);
// The same over a [D, H, W] volume: positions (d * H + h) * W + w, padding slot D * H * W.
Tensor adaptive_window_index_3d(const int64_t in[3], const int64_t out[3], Device device,
                                std::vector<double>* window_sizes);
// Gathers [B, L, K] from `flat` [B, S] through `index` (values in [0, S], S = padding slot).
Tensor gather_windows(const Tensor& flat, const Tensor& index, int64_t L, int64_t K,
                      double pad_value);

}  // namespace ember::nn::detail
