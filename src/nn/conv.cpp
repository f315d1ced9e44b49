// im2col, col2im, conv1d and conv2d. The convolution is the backend's direct kernel where it has
// one (oneDNN's on the CPU for float32), else im2col and one GEMM (a batched one per group), front
// ends of ops/window_ops.h, so CPU and CUDA share the code; that form's autograd comes from the
// GEMM and from im2col, whose gradient is col2im. conv1d is conv2d over a height of 1.
#include "core/autocast_hook.h"

#include "ember/nn/functional.h"
#include "nn/window.h"
#include "ops/window_ops.h"

namespace ember {
namespace {

struct ConvPadding {
  int64_t top, left, bottom, right;
};

void check_positive(ExpandingArray<2> a, const char* what, const char* op) {
  EMBER_CHECK(a[0] > 0 && a[1] > 0, ValueError, op, "(): ", what,
              " must be greater than zero, but got ", a);
}

// The windows of a convolution or an im2col of x [N, C, H, W], checked.
Window conv_window(const Tensor& x, ExpandingArray<2> k, ExpandingArray<2> dilation,
                   const ConvPadding& pad, ExpandingArray<2> stride) {
  const int64_t C = x.size(1), H = x.size(2), W = x.size(3);
  Window g{C,       H,        W,           k[0],        k[1], stride[0], stride[1],
           pad.top, pad.left, dilation[0], dilation[1], 0,    0};
  g.out_h = nn::detail::window_output_size(H, k[0], pad.top, pad.top + pad.bottom, stride[0],
                                           dilation[0], false);
  g.out_w = nn::detail::window_output_size(W, k[1], pad.left, pad.left + pad.right, stride[1],
                                           dilation[1], false);
  EMBER_CHECK(g.out_h > 0 && g.out_w > 0, ValueError, "conv2d(): the input of shape ", x.sizes(),
              " (with padding) is smaller than the dilated kernel ", k, " with dilation ", dilation,
              "; the output would be empty");
  EMBER_CHECK(x.is_floating_point(), TypeError, "conv2d(): expected a floating point input, got ",
              python_name(x.dtype()));
  return g;
}

Tensor conv2d_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                   ExpandingArray<2> stride, const ConvPadding& pad, ExpandingArray<2> dilation,
                   int64_t groups) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, ValueError,
              "conv2d(): expected a 3-D (unbatched) or 4-D (batched) input, got shape ",
              input.sizes());
  if (input.dim() == 3) {
    return conv2d_impl(input.unsqueeze(0), weight, bias, stride, pad, dilation, groups).squeeze(0);
  }
  EMBER_CHECK(weight.dim() == 4, ValueError, "conv2d(): weight must be 4-D [out_channels, ",
              "in_channels / groups, kh, kw], got shape ", weight.sizes());
  check_positive(stride, "stride", "conv2d");
  check_positive(dilation, "dilation", "conv2d");
  EMBER_CHECK(groups > 0, ValueError, "conv2d(): groups must be positive, got ", groups);
  const int64_t N = input.size(0), C = input.size(1), O = weight.size(0);
  EMBER_CHECK(C == weight.size(1) * groups, ValueError, "conv2d(): Given groups=", groups,
              ", weight of size ", weight.sizes(), ", expected input", input.sizes(), " to have ",
              weight.size(1) * groups, " channels, but got ", C, " channels instead");
  EMBER_CHECK(O % groups == 0, ValueError, "conv2d(): out_channels (", O,
              ") must be divisible by groups (", groups, ")");
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == O), ValueError,
              "conv2d(): bias must have shape [", O, "], got ", bias.sizes());
  const Window g = conv_window(input, {weight.size(2), weight.size(3)}, dilation, pad, stride);
  const auto composed = [g, groups, N, O](const Tensor& x, const Tensor& w, const Tensor& b) {
    const Tensor cols = im2col_columns(x, g);  // [N, C*kh*kw, L]
    // Each group convolves its own channels with its own filters.
    return grouped_conv_gemm(cols, w, b, groups).view({N, O, g.out_h, g.out_w});
  };
  if (has_direct_convolution(input, weight, bias, g, groups)) {
    return direct_convolution(input, weight, bias, g, groups, composed);
  }
  return composed(input, weight, bias);
}

}  // namespace

Tensor im2col(const Tensor& input, ExpandingArray<2> kernel_size, ExpandingArray<2> dilation,
              ExpandingArray<2> padding, ExpandingArray<2> stride) {
  EMBER_CHECK(input.dim() == 4, ValueError, "im2col(): expected a 4-D input [N, C, H, W], got ",
              input.sizes());
  check_positive(kernel_size, "kernel_size", "im2col");
  check_positive(stride, "stride", "im2col");
  check_positive(dilation, "dilation", "im2col");
  // Columns [N, K, L]: column l holds the window of output position l, K = C * kh * kw.
  return im2col_columns(input,
                        conv_window(input, kernel_size, dilation,
                                    {padding[0], padding[1], padding[0], padding[1]}, stride));
}

Tensor col2im(const Tensor& input, ExpandingArray<2> output_size, ExpandingArray<2> kernel_size,
              ExpandingArray<2> dilation, ExpandingArray<2> padding, ExpandingArray<2> stride) {
  EMBER_CHECK(input.dim() == 3, ValueError,
              "col2im(): expected a 3-D input [N, C * kh * kw, L], got shape ", input.sizes());
  EMBER_CHECK(input.is_floating_point(), TypeError,
              "col2im(): expected a floating point input, got ", python_name(input.dtype()));
  check_positive(output_size, "output_size", "col2im");
  check_positive(kernel_size, "kernel_size", "col2im");
  check_positive(stride, "stride", "col2im");
  check_positive(dilation, "dilation", "col2im");
  EMBER_CHECK(padding[0] >= 0 && padding[1] >= 0, ValueError,
              "col2im(): padding must be non-negative, got ", padding);
  const int64_t window = kernel_size[0] * kernel_size[1];
  EMBER_CHECK(input.size(1) % window == 0, ValueError,
              "col2im(): expected size of input's dimension 1 to be divisible by the product of "
              "kernel_size (",
              window, "), but got input.size(1)=", input.size(1));
  Window g{input.size(1) / window,
           output_size[0],
           output_size[1],
           kernel_size[0],
           kernel_size[1],
           stride[0],
           stride[1],
           padding[0],
           padding[1],
           dilation[0],
           dilation[1],
           0,
           0};
  g.out_h = nn::detail::window_output_size(g.height, g.kh, g.ph, 2 * g.ph, g.sh, g.dh, false);
  g.out_w = nn::detail::window_output_size(g.width, g.kw, g.pw, 2 * g.pw, g.sw, g.dw, false);
  EMBER_CHECK(g.out_h > 0 && g.out_w > 0 && input.size(2) == g.positions(), ValueError,
              "col2im(): given output_size=", output_size, ", kernel_size=", kernel_size,
              ", dilation=", dilation, ", padding=", padding, ", stride=", stride,
              ", expected size of input's dimension 2 to match the calculated number of sliding "
              "blocks ",
              g.out_h, " * ", g.out_w, " = ", g.positions(),
              ", but got input.size(2)=", input.size(2));
  return col2im_columns(input, g).view({input.size(0), g.channels, g.height, g.width});
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
              ExpandingArray<2> stride, ExpandingArray<2> padding, ExpandingArray<2> dilation,
              int64_t groups) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::conv2d, input);
    return conv2d(ac.cast(input), ac.cast(weight), ac.cast(bias), stride, padding, dilation,
                  groups);
  }
  EMBER_CHECK(padding[0] >= 0 && padding[1] >= 0, ValueError,
              "conv2d(): negative padding is not supported, got ", padding);
  return conv2d_impl(input, weight, bias, stride, {padding[0], padding[1], padding[0], padding[1]},
                     dilation, groups);
}

namespace nn {

Tensor conv2d_with_padding(const Tensor& input, const Tensor& weight, const Tensor& bias,
                           ExpandingArray<2> stride, const conv_padding_t& padding,
                           ExpandingArray<2> dilation, int64_t groups) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::conv2d, input);
    return conv2d_with_padding(ac.cast(input), ac.cast(weight), ac.cast(bias), stride, padding,
                               dilation, groups);
  }
  if (const auto* p = std::get_if<ExpandingArray<2>>(&padding)) {
    return ember::conv2d(input, weight, bias, stride, *p, dilation, groups);
  }
  if (std::holds_alternative<enumtype::kValid>(padding)) {
    return ember::conv2d(input, weight, bias, stride, 0, dilation, groups);
  }
  EMBER_CHECK(stride[0] == 1 && stride[1] == 1, ValueError,
              "padding='same' is not supported for strided convolutions");
  EMBER_CHECK(weight.dim() == 4, ValueError, "conv2d(): weight must be 4-D, got shape ",
              weight.sizes());
  // Total padding d * (k - 1) per dim; the odd element goes to the bottom/right.
  const int64_t th = dilation[0] * (weight.size(2) - 1), tw = dilation[1] * (weight.size(3) - 1);
  return conv2d_impl(input, weight, bias, stride, {th / 2, tw / 2, th - th / 2, tw - tw / 2},
                     dilation, groups);
}

Tensor conv1d_with_padding(const Tensor& input, const Tensor& weight, const Tensor& bias,
                           ExpandingArray<1> stride, const conv_padding_nd_t<1>& padding,
                           ExpandingArray<1> dilation, int64_t groups) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, ValueError,
              "conv1d(): expected a 2-D (unbatched) or 3-D (batched) input, got shape ",
              input.sizes());
  EMBER_CHECK(weight.dim() == 3, ValueError,
              "conv1d(): weight must be 3-D [out_channels, in_channels / groups, k], got shape ",
              weight.sizes());
  EMBER_CHECK(groups > 0, ValueError, "conv1d(): groups must be positive, got ", groups);
  const int64_t C = input.size(input.dim() - 2);
  EMBER_CHECK(C == weight.size(1) * groups, ValueError, "conv1d(): Given groups=", groups,
              ", weight of size ", weight.sizes(), ", expected input", input.sizes(), " to have ",
              weight.size(1) * groups, " channels, but got ", C, " channels instead");
  conv_padding_t padding2d = kValid;
  if (const auto* p = std::get_if<ExpandingArray<1>>(&padding)) {
    padding2d = ExpandingArray<2>({0, (*p)[0]});
  } else if (std::holds_alternative<enumtype::kSame>(padding)) {
    padding2d = kSame;
  }
  return conv2d_with_padding(input.unsqueeze(-2), weight.unsqueeze(2), bias, {1, stride[0]},
                             padding2d, {1, dilation[0]}, groups)
      .squeeze(-2);
}

}  // namespace nn

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
              ExpandingArray<1> stride, ExpandingArray<1> padding, ExpandingArray<1> dilation,
              int64_t groups) {
  EMBER_CHECK(padding[0] >= 0, ValueError, "conv1d(): negative padding is not supported, got ",
              padding);
  return nn::conv1d_with_padding(input, weight, bias, stride, padding, dilation, groups);
}

}  // namespace ember
