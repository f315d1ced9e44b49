#pragma once
// The front ends of convolution and pooling (internal; nn/conv.cpp and nn/pooling.cpp call them):
// the backend's sliding-window kernels (kernel_math/window2d.h has the layouts) and the
// convolution's GEMM, each with its gradient, so that src/nn reaches no backend itself.
#include <tuple>

#include "ember/tensor.h"
#include "kernel_math/window2d.h"

namespace ember {

// Columns [N, K, L] of x [N, C, H, W] (g.channels == C). Differentiable: the gradient is
// col2im_columns, whose gradient is im2col_columns again (so double backward works).
Tensor im2col_columns(const Tensor& x, const Window2d& g);
// [N, C, H, W] whose elements are the sums of the column entries taken from them.
Tensor col2im_columns(const Tensor& cols, const Window2d& g);

// The maximum of every window of x's planes ([P, H, W], g.channels == 1) and its flat position
// h * W + w, both [P, out_h, out_w]. The values are differentiable (as a gather).
std::tuple<Tensor, Tensor> max_pool_planes(const Tensor& planes, const Window2d& g);

// out [N, O, L] = weight [O, K] @ cols[n] (+ bias) for every sample n of cols [N, K, L];
// differentiable in all three.
Tensor conv_gemm(const Tensor& cols, const Tensor& weight, const Tensor& bias);

}  // namespace ember
