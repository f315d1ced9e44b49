#pragma once
// The front ends of convolution and pooling (internal; nn/conv.cpp and nn/pooling.cpp call them):
// the backend's sliding-window kernels (kernel_math/window.h has the layouts) and the
// convolution's GEMM, each with its gradient, so that src/nn reaches no backend itself.
#include <functional>
#include <tuple>

#include "ember/tensor.h"
#include "kernel_math/window.h"

namespace ember {

// Columns [N, K, L] of x [N, C, H, W] or [N, C, D, H, W] (g.channels == C). Differentiable: the
// gradient is col2im_columns, whose gradient is im2col_columns again (so double backward works).
Tensor im2col_columns(const Tensor& x, const Window& g);
// [N, C, D * H * W] whose elements are the sums of the column entries taken from them (the
// caller views it as its spatial shape).
Tensor col2im_columns(const Tensor& cols, const Window& g);

// The maximum of every window of x's planes ([P, H, W] or [P, D, H, W], g.channels == 1) and its
// flat position (d * H + h) * W + w, both [P, L]. The values are differentiable (as a gather).
std::tuple<Tensor, Tensor> max_pool_planes(const Tensor& planes, const Window& g);

// out [N, O, L] = weight [O, K] @ cols[n] (+ bias) for every sample n of cols [N, K, L];
// differentiable in all three.
Tensor conv_gemm(const Tensor& cols, const Tensor& weight, const Tensor& bias);
// The same with `groups` groups: group g's filters (weight rows) see only its K / groups rows of
// the columns. out [N, O, L].
Tensor grouped_conv_gemm(const Tensor& cols, const Tensor& weight, const Tensor& bias,
                         int64_t groups);

// Whether conv2d/conv3d of these operands can be the backend's direct convolution (oneDNN's on the
// CPU): one floating dtype and one device for all three, nothing empty, and a backend that has a
// kernel for the case. Otherwise the caller composes im2col_columns and grouped_conv_gemm.
bool has_direct_convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                            const Window& g, int64_t groups);
// The convolution of input [N, C, H, W] or [N, C, D, H, W] with weight (+ bias) over g's windows
// by the backend's kernel; out [N, O, (out_d,) out_h, out_w]. Its gradient is the backend's
// convolution_backward; a backward that builds a graph (create_graph) differentiates `composite`,
// the same convolution composed of differentiable ops, instead.
using ConvComposite = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>;
Tensor direct_convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                          const Window& g, int64_t groups, ConvComposite composite);

// The transposed convolution of input [N, C, (D,) H, W] with weight [C, O / groups, (kd,) kh, kw]
// (+ bias) as the adjoint of the convolution over g's windows: g describes that convolution, from
// the transposed output [N, O, (g.depth,) g.height, g.width] (g.channels == O) to input's
// positions (g.out_* are input's sizes). The backend's convolution_backward computes it; its
// gradients are the backend's convolution (input) and weight gradient, or `composite`'s under
// create_graph. The caller checks has_direct_convolution(input, weight, bias, g, groups).
Tensor direct_conv_transpose(const Tensor& input, const Tensor& weight, const Tensor& bias,
                             const Window& g, int64_t groups, ConvComposite composite);

}  // namespace ember
