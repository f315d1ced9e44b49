// conv_transpose1d and conv_transpose2d: the adjoint of the convolution. Where the backend has a
// direct convolution (oneDNN's on the CPU for float32) it is that convolution's backward-data
// kernel (ops/window_ops.h). Otherwise, per group one GEMM, weight^T times the input, gives each
// input position's k x k contributions as columns, and col2im sums them into the output windows;
// that form's autograd comes from the GEMM and from col2im (whose gradient is im2col), so every
// device runs it. conv_transpose1d is conv_transpose2d over a height of 1.
#include "core/autocast_hook.h"

#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "ops/window_ops.h"

namespace ember {
namespace {

void check_sizes(ExpandingArray<2> stride, ExpandingArray<2> padding,
                 ExpandingArray<2> output_padding, ExpandingArray<2> dilation, const char* op) {
  EMBER_CHECK(stride[0] > 0 && stride[1] > 0, ValueError, op,
              "(): stride must be greater than zero, but got ", stride);
  EMBER_CHECK(dilation[0] > 0 && dilation[1] > 0, ValueError, op,
              "(): dilation must be greater than zero, but got ", dilation);
  EMBER_CHECK(padding[0] >= 0 && padding[1] >= 0, ValueError, op,
              "(): negative padding is not supported, got ", padding);
  EMBER_CHECK(output_padding[0] >= 0 && output_padding[1] >= 0, ValueError, op,
              "(): negative output_padding is not supported, got ", output_padding);
  // PyTorch's rule: a larger output_padding would add rows no input position reaches.
  for (int d = 0; d < 2; ++d) {
    EMBER_CHECK(output_padding[d] < stride[d] || output_padding[d] < dilation[d], ValueError, op,
                "(): output padding must be smaller than either stride or dilation, but got "
                "output_padding=",
                output_padding, ", stride=", stride, ", dilation=", dilation);
  }
}

// input [N, C, H, W], weight [C, O / groups, kh, kw]; `op` names the caller in errors.
Tensor conv_transpose2d_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                             ExpandingArray<2> stride, ExpandingArray<2> padding,
                             ExpandingArray<2> output_padding, int64_t groups,
                             ExpandingArray<2> dilation, const char* op) {
  check_sizes(stride, padding, output_padding, dilation, op);
  EMBER_CHECK(groups > 0, ValueError, op, "(): groups must be positive, got ", groups);
  EMBER_CHECK(input.is_floating_point(), TypeError, op, "(): expected a floating point input, got ",
              python_name(input.dtype()));
  const int64_t N = input.size(0), C = input.size(1), H = input.size(2), W = input.size(3);
  EMBER_CHECK(C == weight.size(0), ValueError, op, "(): Given transposed=1, weight of size ",
              weight.sizes(), ", expected input", input.sizes(), " to have ", weight.size(0),
              " channels, but got ", C, " channels instead");
  EMBER_CHECK(C % groups == 0, ValueError, op, "(): in_channels (", C,
              ") must be divisible by groups (", groups, ")");
  const int64_t O = weight.size(1) * groups, kh = weight.size(2), kw = weight.size(3);
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == O), ValueError, op,
              "(): bias must have shape [", O, "], got ", bias.sizes());
  const int64_t out_h =
      (H - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kh - 1) + output_padding[0] + 1;
  const int64_t out_w =
      (W - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kw - 1) + output_padding[1] + 1;
  EMBER_CHECK(out_h > 0 && out_w > 0, ValueError, op, "(): Given input size per channel: (", H,
              " x ", W, "). Calculated output size per channel: (", out_h, " x ", out_w,
              "). Output size is too small");

  // The adjoint convolution's windows: from the output [N, O, out_h, out_w] to input's positions.
  const Window g{O,          out_h,      out_w,       kh,          kw, stride[0], stride[1],
                 padding[0], padding[1], dilation[0], dilation[1], H,  W};
  const auto composed = [=](const Tensor& in, const Tensor& w, const Tensor& b) {
    // With output_padding >= stride (allowed when it is below the dilation) col2im's windows
    // cover more positions than the input has; zero positions appended there add nothing.
    Tensor x = in;
    const int64_t extra_h = output_padding[0] / stride[0], extra_w = output_padding[1] / stride[1];
    if (extra_h > 0 || extra_w > 0) x = pad(x, {0, extra_w, 0, extra_h});
    const int64_t L = x.size(2) * x.size(3);
    x = x.reshape({N, C, L});
    const int64_t Cg = C / groups, Og = O / groups;
    std::vector<Tensor> cols;
    cols.reserve(static_cast<size_t>(groups));
    for (int64_t gi = 0; gi < groups; ++gi) {
      const Tensor wg = w.narrow(0, gi * Cg, Cg).reshape({Cg, Og * kh * kw});
      cols.push_back(matmul(wg.t(), x.narrow(1, gi * Cg, Cg)));  // [N, Og * kh * kw, L]
    }
    Tensor out = col2im(groups == 1 ? cols[0] : cat(cols, 1), {out_h, out_w}, {kh, kw}, dilation,
                        padding, stride);
    if (b.defined()) out = out + b.view({1, O, 1, 1});
    return out;
  };
  // The adjoint covers input's positions only when output_padding < stride (g.out_* == H, W).
  const bool adjoint_fits = output_padding[0] < stride[0] && output_padding[1] < stride[1];
  if (adjoint_fits && has_direct_convolution(input, weight, bias, g, groups)) {
    return direct_conv_transpose(input, weight, bias, g, groups, composed);
  }
  return composed(input, weight, bias);
}

}  // namespace

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        ExpandingArray<2> stride, ExpandingArray<2> padding,
                        ExpandingArray<2> output_padding, int64_t groups,
                        ExpandingArray<2> dilation) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::conv_transpose2d, input);
    return conv_transpose2d(ac.cast(input), ac.cast(weight), ac.cast(bias), stride, padding,
                            output_padding, groups, dilation);
  }
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, ValueError,
              "conv_transpose2d(): expected a 3-D (unbatched) or 4-D (batched) input, got shape ",
              input.sizes());
  EMBER_CHECK(weight.dim() == 4, ValueError,
              "conv_transpose2d(): weight must be 4-D [in_channels, out_channels / groups, kh, "
              "kw], got shape ",
              weight.sizes());
  const bool batched = input.dim() == 4;
  Tensor out = conv_transpose2d_impl(batched ? input : input.unsqueeze(0), weight, bias, stride,
                                     padding, output_padding, groups, dilation, "conv_transpose2d");
  return batched ? out : out.squeeze(0);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        ExpandingArray<1> stride, ExpandingArray<1> padding,
                        ExpandingArray<1> output_padding, int64_t groups,
                        ExpandingArray<1> dilation) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::conv_transpose2d, input);
    return conv_transpose1d(ac.cast(input), ac.cast(weight), ac.cast(bias), stride, padding,
                            output_padding, groups, dilation);
  }
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, ValueError,
              "conv_transpose1d(): expected a 2-D (unbatched) or 3-D (batched) input, got shape ",
              input.sizes());
  EMBER_CHECK(weight.dim() == 3, ValueError,
              "conv_transpose1d(): weight must be 3-D [in_channels, out_channels / groups, k], "
              "got shape ",
              weight.sizes());
  const bool batched = input.dim() == 3;
  const Tensor x = (batched ? input : input.unsqueeze(0)).unsqueeze(2);  // [N, C, 1, L]
  Tensor out =
      conv_transpose2d_impl(x, weight.unsqueeze(2), bias, {1, stride[0]}, {0, padding[0]},
                            {0, output_padding[0]}, groups, {1, dilation[0]}, "conv_transpose1d")
          .squeeze(2);
  return batched ? out : out.squeeze(0);
}

}  // namespace ember
