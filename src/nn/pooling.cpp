// max_pool2d, avg_pool2d, adaptive_avg_pool2d, adaptive_max_pool2d and their modules. Every [H, W]
// plane is pooled on its own: max pooling by its backend kernel (values and indices), average
// pooling as im2col of one-channel planes summed over each window, adaptive pooling through an
// index table.
#include "ember/nn/modules/pooling.h"

#include <limits>

#include "core/autocast_hook.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "nn/describe.h"
#include "nn/window.h"
#include "ops/window_ops.h"

namespace ember {
namespace {

void check_pool_input(const Tensor& x, const char* op) {
  EMBER_CHECK(x.dim() == 3 || x.dim() == 4, ValueError, op,
              "(): expected a 3-D (unbatched) or 4-D (batched) input, got shape ", x.sizes());
  EMBER_CHECK(x.is_floating_point(), TypeError, op, "(): expected a floating point input, got ",
              python_name(x.dtype()));
}

// The windows of one [H, W] plane (channels = 1), after PyTorch's checks of the arguments.
Window pool_geometry(const Tensor& x, ExpandingArray<2> k, ExpandingArray<2> stride,
                     ExpandingArray<2> pad, ExpandingArray<2> dilation, bool ceil_mode,
                     const char* op) {
  check_pool_input(x, op);
  for (int i = 0; i < 2; ++i) {
    EMBER_CHECK(k[i] > 0 && stride[i] > 0 && dilation[i] > 0, ValueError, op,
                "(): kernel_size, stride and dilation must be positive, got kernel_size=", k,
                ", stride=", stride, ", dilation=", dilation);
    EMBER_CHECK(pad[i] >= 0 && pad[i] <= k[i] / 2, ValueError, op,
                "(): pad should be at most half of effective kernel size, but got pad=", pad,
                " and kernel_size=", k);
  }
  const int64_t H = x.size(-2), W = x.size(-1);
  Window g{1,      H,      W,           k[0],        k[1], stride[0], stride[1],
           pad[0], pad[1], dilation[0], dilation[1], 0,    0};
  g.out_h = nn::detail::window_output_size(H, k[0], pad[0], 2 * pad[0], stride[0], dilation[0],
                                           ceil_mode);
  g.out_w = nn::detail::window_output_size(W, k[1], pad[1], 2 * pad[1], stride[1], dilation[1],
                                           ceil_mode);
  EMBER_CHECK(g.out_h > 0 && g.out_w > 0, ValueError, op, "(): Given input size ", x.sizes(),
              ", the calculated output size is [", g.out_h, ", ", g.out_w, "], which is too small");
  return g;
}

// x's shape with the last two dims replaced by the output's.
DimVector pooled_shape(const Tensor& x, const Window& g) {
  DimVector shape(x.sizes());
  shape[x.dim() - 2] = g.out_h;
  shape[x.dim() - 1] = g.out_w;
  return shape;
}

int64_t planes_of(const Tensor& x) {
  return x.numel() / std::max<int64_t>(x.size(-2) * x.size(-1), 1);
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   ExpandingArray<2> kernel_size,
                                                   std::optional<ExpandingArray<2>> stride,
                                                   ExpandingArray<2> padding,
                                                   ExpandingArray<2> dilation, bool ceil_mode) {
  const Window g = pool_geometry(input, kernel_size, stride.value_or(kernel_size), padding,
                                 dilation, ceil_mode, "max_pool2d");
  auto [values, indices] = max_pool_planes(input.reshape({planes_of(input), g.height, g.width}), g);
  const DimVector shape = pooled_shape(input, g);
  return {values.reshape(shape), indices.reshape(shape)};
}

Tensor max_pool2d(const Tensor& input, ExpandingArray<2> kernel_size,
                  std::optional<ExpandingArray<2>> stride, ExpandingArray<2> padding,
                  ExpandingArray<2> dilation, bool ceil_mode) {
  return std::get<0>(
      max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor avg_pool2d(const Tensor& input, ExpandingArray<2> kernel_size,
                  std::optional<ExpandingArray<2>> stride_opt, ExpandingArray<2> padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::avg_pool2d, input);
    return avg_pool2d(input, kernel_size, stride_opt, padding, ceil_mode, count_include_pad,
                      divisor_override);
  }
  const ExpandingArray<2> stride = stride_opt.value_or(kernel_size);
  EMBER_CHECK(!divisor_override || *divisor_override != 0, ValueError,
              "avg_pool2d(): divisor must be not zero");
  const Window g = pool_geometry(input, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d");
  // Each plane is a one-channel image; im2col's zero padding adds nothing to the sums.
  Tensor windows = im2col_columns(input.reshape({planes_of(input), 1, g.height, g.width}),
                                  g);  // [P, kh * kw, L]
  // The divisor of each output position, as PyTorch's kernel computes it.
  const int64_t H = g.height, W = g.width;
  std::vector<double> div;
  div.reserve(g.positions());
  for (int64_t oh = 0; oh < g.out_h; ++oh) {
    for (int64_t ow = 0; ow < g.out_w; ++ow) {
      int64_t h0 = oh * stride[0] - padding[0], w0 = ow * stride[1] - padding[1];
      int64_t h1 = std::min(h0 + kernel_size[0], H + padding[0]);
      int64_t w1 = std::min(w0 + kernel_size[1], W + padding[1]);
      const int64_t pool_size = (h1 - h0) * (w1 - w0);
      h0 = std::max<int64_t>(h0, 0);
      w0 = std::max<int64_t>(w0, 0);
      h1 = std::min(h1, H);
      w1 = std::min(w1, W);
      div.push_back(divisor_override    ? static_cast<double>(*divisor_override)
                    : count_include_pad ? static_cast<double>(pool_size)
                                        : static_cast<double>((h1 - h0) * (w1 - w0)));
    }
  }
  Tensor divisor = tensor(div, TensorOptions(input.dtype()).device(input.device()));
  return (windows.sum({1}) / divisor).reshape(pooled_shape(input, g));
}

namespace {

// The adaptive windows of every [H, W] plane: [planes, L, K] with short windows padded by
// pad_value, the flat position of each window element (index, [L * K]; H * W for padding) and
// each window's true size.
struct AdaptiveWindows {
  Tensor windows, index;
  std::vector<double> sizes;
  int64_t L, K;
  DimVector output_shape;
};

AdaptiveWindows adaptive_windows(const Tensor& input, ExpandingArray<2> output_size,
                                 double pad_value, const char* op) {
  check_pool_input(input, op);
  EMBER_CHECK(output_size[0] > 0 && output_size[1] > 0, ValueError, op,
              "(): output_size must be positive, got ", output_size);
  const int64_t H = input.size(-2), W = input.size(-1);
  EMBER_CHECK(H > 0 && W > 0, ValueError, op,
              "(): expected non-empty spatial dims, got input shape ", input.sizes());
  AdaptiveWindows a;
  a.L = output_size[0] * output_size[1];
  a.index = nn::detail::adaptive_window_index(H, W, output_size[0], output_size[1], input.device(),
                                              &a.sizes);
  a.K = a.index.numel() / a.L;
  a.windows = nn::detail::gather_windows(input.reshape({planes_of(input), H * W}), a.index, a.L,
                                         a.K, pad_value);
  a.output_shape = DimVector(input.sizes());
  a.output_shape[input.dim() - 2] = output_size[0];
  a.output_shape[input.dim() - 1] = output_size[1];
  return a;
}

}  // namespace

Tensor adaptive_avg_pool2d(const Tensor& input, ExpandingArray<2> output_size) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::adaptive_avg_pool2d, input);
    return adaptive_avg_pool2d(input, output_size);
  }
  AdaptiveWindows a = adaptive_windows(input, output_size, 0.0, "adaptive_avg_pool2d");
  Tensor divisor = tensor(a.sizes, TensorOptions(input.dtype()).device(input.device()));
  return (a.windows.sum({2}) / divisor).reshape(a.output_shape);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, ExpandingArray<2> output_size) {
  // Short windows are padded with -inf, which never wins.
  AdaptiveWindows a = adaptive_windows(input, output_size, -std::numeric_limits<double>::infinity(),
                                       "adaptive_max_pool2d");
  auto [values, within] = a.windows.max(2);  // [planes, L]
  const int64_t planes = a.windows.size(0);
  Tensor positions = a.index.view({1, a.L, a.K})
                         .expand({planes, a.L, a.K})
                         .gather(2, within.unsqueeze(2))
                         .squeeze(2);
  return {values.reshape(a.output_shape), positions.reshape(a.output_shape)};
}

namespace nn {

AdaptiveMaxPool2dImpl::AdaptiveMaxPool2dImpl(const AdaptiveMaxPool2dOptions& options_)
    : options(options_) {}
Tensor AdaptiveMaxPool2dImpl::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}
std::tuple<Tensor, Tensor> AdaptiveMaxPool2dImpl::forward_with_indices(const Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, ValueError, detail::describe(*this),
              ": expected a 3-D or 4-D input, got shape ", input.sizes());
  return ember::adaptive_max_pool2d(input, options.output_size());
}
void AdaptiveMaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::AdaptiveMaxPool2d(output_size=" << options.output_size() << ")";
}

MaxPool2dImpl::MaxPool2dImpl(const MaxPool2dOptions& options_) : options(options_) {}
Tensor MaxPool2dImpl::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}
std::tuple<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, ValueError, detail::describe(*this),
              ": expected a 3-D or 4-D input, got shape ", input.sizes());
  return ember::max_pool2d_with_indices(input, options.kernel_size(), options.stride(),
                                        options.padding(), options.dilation(), options.ceil_mode());
}
void MaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::MaxPool2d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}

AvgPool2dImpl::AvgPool2dImpl(const AvgPool2dOptions& options_) : options(options_) {}
Tensor AvgPool2dImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, ValueError, detail::describe(*this),
              ": expected a 3-D or 4-D input, got shape ", input.sizes());
  return ember::avg_pool2d(input, options.kernel_size(), options.stride(), options.padding(),
                           options.ceil_mode(), options.count_include_pad(),
                           options.divisor_override());
}
void AvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::AvgPool2d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
}

AdaptiveAvgPool2dImpl::AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& options_)
    : options(options_) {}
Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, ValueError, detail::describe(*this),
              ": expected a 3-D or 4-D input, got shape ", input.sizes());
  return ember::adaptive_avg_pool2d(input, options.output_size());
}
void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::AdaptiveAvgPool2d(output_size=" << options.output_size() << ")";
}

}  // namespace nn
}  // namespace ember
