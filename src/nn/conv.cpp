// im2col, conv2d and Conv2d. The convolution is im2col (an index gather, see window.h) and one
// GEMM (a batched one per group), so CPU and CUDA share the code and autograd comes from the
// primitives: index_select's gradient is the col2im scatter-add.
#include "ember/nn/modules/conv.h"

#include <cmath>

#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "nn/describe.h"
#include "nn/window.h"

namespace ember {
namespace {

struct ConvPadding {
  int64_t top, left, bottom, right;
};

void check_positive(ExpandingArray<2> a, const char* what, const char* op) {
  EMBER_CHECK(a[0] > 0 && a[1] > 0, ValueError, op, "(): ", what,
              " must be greater than zero, but got ", a);
}

// Columns [N, L, K]: row l holds the window of output position l, K = C * kh * kw.
Tensor columns(const Tensor& x, ExpandingArray<2> k, ExpandingArray<2> dilation,
               const ConvPadding& pad, ExpandingArray<2> stride, int64_t* out_h, int64_t* out_w) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  nn::detail::WindowGeometry g{
      C, H, W, k[0], k[1], stride[0], stride[1], pad.top, pad.left, dilation[0], dilation[1], 0, 0};
  g.out_h = nn::detail::window_output_size(H, k[0], pad.top, pad.top + pad.bottom, stride[0],
                                           dilation[0], false);
  g.out_w = nn::detail::window_output_size(W, k[1], pad.left, pad.left + pad.right, stride[1],
                                           dilation[1], false);
  EMBER_CHECK(g.out_h > 0 && g.out_w > 0, ValueError, "conv2d(): the input of shape ", x.sizes(),
              " (with padding) is smaller than the dilated kernel ", k, " with dilation ", dilation,
              "; the output would be empty");
  *out_h = g.out_h;
  *out_w = g.out_w;
  const int64_t L = g.out_h * g.out_w, K = C * k[0] * k[1];
  Tensor index = nn::detail::window_index(g, x.device());
  return nn::detail::gather_windows(x.reshape({N, C * H * W}), index, L, K, 0.0);
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
  int64_t oh = 0, ow = 0;
  ExpandingArray<2> k({weight.size(2), weight.size(3)});
  Tensor cols = columns(input, k, dilation, pad, stride, &oh, &ow);  // [N, L, C*kh*kw]
  const int64_t L = oh * ow, Kg = C / groups * k[0] * k[1];
  Tensor out;  // [N * L, O]
  if (groups == 1) {
    Tensor rows = cols.view({N * L, Kg});
    Tensor w = weight.reshape({O, Kg}).t();
    out = bias.defined() ? addmm(bias, rows, w) : mm(rows, w);
  } else {
    // [g, N*L, Kg] @ [g, Kg, O/g] -> [g, N*L, O/g] -> [N*L, O]
    Tensor rows = cols.view({N * L, groups, Kg}).transpose(0, 1);
    Tensor w = weight.reshape({groups, O / groups, Kg}).transpose(1, 2);
    out = bmm(rows, w).transpose(0, 1).reshape({N * L, O});
    if (bias.defined()) out = out + bias;
  }
  return out.view({N, oh, ow, O}).permute({0, 3, 1, 2}).contiguous();
}

}  // namespace

Tensor im2col(const Tensor& input, ExpandingArray<2> kernel_size, ExpandingArray<2> dilation,
              ExpandingArray<2> padding, ExpandingArray<2> stride) {
  EMBER_CHECK(input.dim() == 4, ValueError, "im2col(): expected a 4-D input [N, C, H, W], got ",
              input.sizes());
  check_positive(kernel_size, "kernel_size", "im2col");
  check_positive(stride, "stride", "im2col");
  check_positive(dilation, "dilation", "im2col");
  int64_t oh = 0, ow = 0;
  Tensor cols = columns(input, kernel_size, dilation,
                        {padding[0], padding[1], padding[0], padding[1]}, stride, &oh, &ow);
  return cols.transpose(1, 2).contiguous();
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
              ExpandingArray<2> stride, ExpandingArray<2> padding, ExpandingArray<2> dilation,
              int64_t groups) {
  EMBER_CHECK(padding[0] >= 0 && padding[1] >= 0, ValueError,
              "conv2d(): negative padding is not supported, got ", padding);
  return conv2d_impl(input, weight, bias, stride, {padding[0], padding[1], padding[0], padding[1]},
                     dilation, groups);
}

namespace nn {

Tensor conv2d_with_padding(const Tensor& input, const Tensor& weight, const Tensor& bias,
                           ExpandingArray<2> stride, const conv_padding_t& padding,
                           ExpandingArray<2> dilation, int64_t groups) {
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

Conv2dImpl::Conv2dImpl(const Conv2dOptions& options_) : options(options_) {
  const int64_t groups = options.groups();
  EMBER_CHECK(groups > 0, ValueError, "Conv2d: groups must be a positive integer, got ", groups);
  EMBER_CHECK(options.in_channels() % groups == 0, ValueError,
              "Conv2d: in_channels must be divisible by groups (", options.in_channels(), " % ",
              groups, " != 0)");
  EMBER_CHECK(options.out_channels() % groups == 0, ValueError,
              "Conv2d: out_channels must be divisible by groups (", options.out_channels(), " % ",
              groups, " != 0)");
  const auto& k = options.kernel_size();
  weight = register_parameter(
      "weight", empty({options.out_channels(), options.in_channels() / groups, k[0], k[1]}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_channels()}) : Tensor(),
                            options.bias());
  reset_parameters();
}

void Conv2dImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(weight);
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor Conv2dImpl::forward(const Tensor& input) {
  const bool batched = input.dim() == 4;
  EMBER_CHECK(input.dim() == 3 || batched, ValueError, detail::describe(*this),
              ": expected a 4-D input [N, ", options.in_channels(),
              ", H, W] (or 3-D unbatched), got shape ", input.sizes());
  EMBER_CHECK(input.size(batched ? 1 : 0) == options.in_channels(), ValueError,
              detail::describe(*this), ": expected input with ", options.in_channels(),
              " channels, got shape ", input.sizes());
  return conv2d_with_padding(input, weight, bias, options.stride(), options.padding(),
                             options.dilation(), options.groups());
}

void Conv2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "Conv2d(" << options.in_channels() << ", " << options.out_channels()
         << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (std::holds_alternative<enumtype::kValid>(options.padding())) {
    stream << ", padding='valid'";
  } else if (std::holds_alternative<enumtype::kSame>(options.padding())) {
    stream << ", padding='same'";
  } else if (const auto& p = std::get<ExpandingArray<2>>(options.padding());
             p != ExpandingArray<2>(0)) {
    stream << ", padding=" << p;
  }
  if (options.dilation() != ExpandingArray<2>(1)) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

}  // namespace nn
}  // namespace ember
