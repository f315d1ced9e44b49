// conv3d and conv_transpose3d: the 2-D design over volumes. Where the backend has a direct
// convolution (oneDNN's on the CPU for float32) both are its kernels (ops/window_ops.h);
// otherwise conv3d is vol2col (im2col with a depth) and one GEMM per group, and conv_transpose3d
// the GEMM's transpose and col2vol, whose autograd comes from the GEMM and the window front ends,
// so every device runs it.
#include "core/autocast_hook.h"

#include "ember/nn/functional.h"
#include "ember/ops.h"
#include "nn/window.h"
#include "ops/window_ops.h"

namespace ember {
namespace {

void check_positive3(ExpandingArray<3> a, const char* what, const char* op) {
  EMBER_CHECK(a[0] > 0 && a[1] > 0 && a[2] > 0, ValueError, op, "(): ", what,
              " must be greater than zero, but got ", a);
}

// input [N, C, D, H, W]; pad_before/pad_total per dim (D, H, W).
Tensor conv3d_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                   ExpandingArray<3> stride, const int64_t pad_before[3],
                   const int64_t pad_total[3], ExpandingArray<3> dilation, int64_t groups) {
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5, ValueError,
              "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: ",
              input.sizes());
  if (input.dim() == 4) {
    return conv3d_impl(input.unsqueeze(0), weight, bias, stride, pad_before, pad_total, dilation,
                       groups)
        .squeeze(0);
  }
  EMBER_CHECK(weight.dim() == 5, ValueError,
              "conv3d(): weight must be 5-D [out_channels, in_channels / groups, kd, kh, kw], "
              "got shape ",
              weight.sizes());
  check_positive3(stride, "stride", "conv3d");
  check_positive3(dilation, "dilation", "conv3d");
  EMBER_CHECK(groups > 0, ValueError, "conv3d(): groups must be positive, got ", groups);
  EMBER_CHECK(input.is_floating_point(), TypeError,
              "conv3d(): expected a floating point input, got ", python_name(input.dtype()));
  const int64_t N = input.size(0), C = input.size(1), O = weight.size(0);
  EMBER_CHECK(O % groups == 0, ValueError, "Given groups=", groups,
              ", expected weight to be divisible by ", groups,
              " at dimension 0, but got weight of size ", weight.sizes(), " instead");
  EMBER_CHECK(C == weight.size(1) * groups, ValueError, "Given groups=", groups,
              ", weight of size ", weight.sizes(), ", expected input", input.sizes(), " to have ",
              weight.size(1) * groups, " channels, but got ", C, " channels instead");
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == O), ValueError,
              "conv3d(): bias must have shape [", O, "], got ", bias.sizes());
  const int64_t in[3] = {input.size(2), input.size(3), input.size(4)};
  const int64_t k[3] = {weight.size(2), weight.size(3), weight.size(4)};
  const Window g = nn::detail::volume_window(C, in, k, stride.data(), pad_before, pad_total,
                                             dilation.data(), false);
  EMBER_CHECK(g.out_d > 0 && g.out_h > 0 && g.out_w > 0, ValueError,
              "conv3d(): the input of shape ", input.sizes(),
              " (with padding) is smaller than the kernel ", IntArrayRef(k, 3), " with dilation ",
              dilation, "; the output would be empty");
  const auto composed = [g, groups, N, O](const Tensor& x, const Tensor& w, const Tensor& b) {
    const Tensor cols = im2col_columns(x, g);  // [N, C * kd * kh * kw, L]
    return grouped_conv_gemm(cols, w, b, groups).view({N, O, g.out_d, g.out_h, g.out_w});
  };
  if (has_direct_convolution(input, weight, bias, g, groups)) {
    return direct_convolution(input, weight, bias, g, groups, composed);
  }
  return composed(input, weight, bias);
}

}  // namespace

Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias,
              ExpandingArray<3> stride, ExpandingArray<3> padding, ExpandingArray<3> dilation,
              int64_t groups) {
  if (amp::autocast_applies(input)) {  // conv3d's autocast policy is conv2d's
    amp::AutocastScope ac(amp::AutocastOp::conv2d, input);
    return conv3d(ac.cast(input), ac.cast(weight), ac.cast(bias), stride, padding, dilation,
                  groups);
  }
  EMBER_CHECK(padding[0] >= 0 && padding[1] >= 0 && padding[2] >= 0, ValueError,
              "conv3d(): negative padding is not supported, got ", padding);
  const int64_t total[3] = {2 * padding[0], 2 * padding[1], 2 * padding[2]};
  return conv3d_impl(input, weight, bias, stride, padding.data(), total, dilation, groups);
}

namespace nn {

Tensor conv3d_with_padding(const Tensor& input, const Tensor& weight, const Tensor& bias,
                           ExpandingArray<3> stride, const conv_padding_nd_t<3>& padding,
                           ExpandingArray<3> dilation, int64_t groups) {
  if (const auto* p = std::get_if<ExpandingArray<3>>(&padding)) {
    return ember::conv3d(input, weight, bias, stride, *p, dilation, groups);
  }
  if (std::holds_alternative<enumtype::kValid>(padding)) {
    return ember::conv3d(input, weight, bias, stride, 0, dilation, groups);
  }
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::conv2d, input);
    return conv3d_with_padding(ac.cast(input), ac.cast(weight), ac.cast(bias), stride, padding,
                               dilation, groups);
  }
  EMBER_CHECK(stride[0] == 1 && stride[1] == 1 && stride[2] == 1, ValueError,
              "padding='same' is not supported for strided convolutions");
  EMBER_CHECK(weight.dim() == 5, ValueError, "conv3d(): weight must be 5-D, got shape ",
              weight.sizes());
  // Total padding d * (k - 1) per dim; the odd element goes after (back, bottom, right).
  int64_t before[3], total[3];
  for (int d = 0; d < 3; ++d) {
    total[d] = dilation[d] * (weight.size(2 + d) - 1);
    before[d] = total[d] / 2;
  }
  return conv3d_impl(input, weight, bias, stride, before, total, dilation, groups);
}

}  // namespace nn

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        ExpandingArray<3> stride, ExpandingArray<3> padding,
                        ExpandingArray<3> output_padding, int64_t groups,
                        ExpandingArray<3> dilation) {
  if (amp::autocast_applies(input)) {  // conv_transpose3d's policy is conv_transpose2d's
    amp::AutocastScope ac(amp::AutocastOp::conv_transpose2d, input);
    return conv_transpose3d(ac.cast(input), ac.cast(weight), ac.cast(bias), stride, padding,
                            output_padding, groups, dilation);
  }
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5, ValueError,
              "Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input "
              "of size: ",
              input.sizes());
  if (input.dim() == 4) {
    return conv_transpose3d(input.unsqueeze(0), weight, bias, stride, padding, output_padding,
                            groups, dilation)
        .squeeze(0);
  }
  EMBER_CHECK(weight.dim() == 5, ValueError,
              "conv_transpose3d(): weight must be 5-D [in_channels, out_channels / groups, kd, "
              "kh, kw], got shape ",
              weight.sizes());
  check_positive3(stride, "stride", "conv_transpose3d");
  check_positive3(dilation, "dilation", "conv_transpose3d");
  EMBER_CHECK(groups > 0, ValueError, "conv_transpose3d(): groups must be positive, got ", groups);
  for (int d = 0; d < 3; ++d) {
    EMBER_CHECK(padding[d] >= 0 && output_padding[d] >= 0, ValueError,
                "conv_transpose3d(): negative padding is not supported, got padding=", padding,
                ", output_padding=", output_padding);
    // PyTorch's rule: a larger output_padding would add layers no input position reaches.
    EMBER_CHECK(output_padding[d] < stride[d] || output_padding[d] < dilation[d], ValueError,
                "output padding must be smaller than either stride or dilation, but got "
                "output_padding_depth: ",
                output_padding[0], " output_padding_height: ", output_padding[1],
                " output_padding_width: ", output_padding[2], " stride_depth: ", stride[0],
                " stride_height: ", stride[1], " stride_width: ", stride[2],
                " dilation_depth: ", dilation[0], " dilation_height: ", dilation[1],
                " dilation_width: ", dilation[2]);
  }
  EMBER_CHECK(input.is_floating_point(), TypeError,
              "conv_transpose3d(): expected a floating point input, got ",
              python_name(input.dtype()));
  const int64_t N = input.size(0), C = input.size(1);
  EMBER_CHECK(C == weight.size(0), ValueError, "Given transposed=1, weight of size ",
              weight.sizes(), ", expected input", input.sizes(), " to have ", weight.size(0),
              " channels, but got ", C, " channels instead");
  EMBER_CHECK(C % groups == 0, ValueError, "conv_transpose3d(): in_channels (", C,
              ") must be divisible by groups (", groups, ")");
  const int64_t O = weight.size(1) * groups;
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == O), ValueError,
              "conv_transpose3d(): bias must have shape [", O, "], got ", bias.sizes());
  int64_t out[3], k[3], extra[3], total[3];
  for (int d = 0; d < 3; ++d) {
    k[d] = weight.size(2 + d);
    out[d] = (input.size(2 + d) - 1) * stride[d] - 2 * padding[d] + dilation[d] * (k[d] - 1) +
             output_padding[d] + 1;
    // With output_padding >= stride (allowed when it is below the dilation) col2vol's windows
    // cover more positions than the input has; zero positions appended there add nothing.
    extra[d] = output_padding[d] / stride[d];
    total[d] = 2 * padding[d];
  }
  EMBER_CHECK(out[0] > 0 && out[1] > 0 && out[2] > 0, ValueError,
              "conv_transpose3d(): Given input size per channel: (", input.size(2), " x ",
              input.size(3), " x ", input.size(4), "). Calculated output size per channel: (",
              out[0], " x ", out[1], " x ", out[2], "). Output size is too small");
  const Window g = nn::detail::volume_window(O, out, k, stride.data(), padding.data(), total,
                                             dilation.data(), false);
  const bool adjoint_fits = extra[0] == 0 && extra[1] == 0 && extra[2] == 0;
  const auto composed = [=](const Tensor& in, const Tensor& w, const Tensor& b) {
    Tensor x = in;
    if (!adjoint_fits) x = pad(x, {0, extra[2], 0, extra[1], 0, extra[0]});
    const int64_t L = x.size(2) * x.size(3) * x.size(4);
    EMBER_CHECK(g.positions() == L, ValueError,
                "conv_transpose3d(): internal size mismatch: ", g.out_d, " x ", g.out_h, " x ",
                g.out_w, " windows for an input of ", x.sizes());
    x = x.reshape({N, C, L});
    // Per group weight^T [Og * kd * kh * kw, Cg] @ x gives each input position's contributions.
    const int64_t Cg = C / groups, Og = O / groups, window = k[0] * k[1] * k[2];
    std::vector<Tensor> cols;
    cols.reserve(static_cast<size_t>(groups));
    for (int64_t gi = 0; gi < groups; ++gi) {
      const Tensor wg = w.narrow(0, gi * Cg, Cg).reshape({Cg, Og * window});
      cols.push_back(matmul(wg.t(), x.narrow(1, gi * Cg, Cg)));  // [N, Og * window, L]
    }
    Tensor result = col2im_columns(groups == 1 ? cols[0] : cat(cols, 1), g)
                        .view({N, O, out[0], out[1], out[2]});
    if (b.defined()) result = result + b.view({1, O, 1, 1, 1});
    return result;
  };
  // With output_padding >= stride (allowed when it is below the dilation) the adjoint's windows
  // cover more positions than the input has: only the composed form pads the input for them.
  if (adjoint_fits && has_direct_convolution(input, weight, bias, g, groups)) {
    return direct_conv_transpose(input, weight, bias, g, groups, composed);
  }
  return composed(input, weight, bias);
}

}  // namespace ember
