// max_pool3d, avg_pool3d, adaptive_avg_pool3d, adaptive_max_pool3d and their modules: the 2-D
// pools' design over [D, H, W] volumes. Every channel's volume is pooled on its own: max pooling
// by the backend's window kernel (values and indices), average pooling as vol2col of one-channel
// volumes summed over each window, adaptive pooling through an index table.
#include <limits>

#include "ember/nn/modules/pooling.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "nn/describe.h"
#include "nn/window.h"
#include "ops/window_ops.h"

namespace ember {
namespace {

void check_pool3d_input(const Tensor& x, const char* op) {
  EMBER_CHECK(x.dim() == 4 || x.dim() == 5, ValueError,
              "non-empty 4D or 5D (batch mode) tensor expected for input, got shape ", x.sizes(),
              " in ", op);
  EMBER_CHECK(x.is_floating_point(), TypeError, op, "(): expected a floating point input, got ",
              python_name(x.dtype()));
}

// The windows of one [D, H, W] volume (channels = 1), after PyTorch's checks of the arguments.
Window pool3d_geometry(const Tensor& x, ExpandingArray<3> k, ExpandingArray<3> stride,
                       ExpandingArray<3> pad, ExpandingArray<3> dilation, bool ceil_mode,
                       const char* op) {
  check_pool3d_input(x, op);
  int64_t total[3];
  for (int i = 0; i < 3; ++i) {
    EMBER_CHECK(k[i] > 0 && stride[i] > 0 && dilation[i] > 0, ValueError, op,
                "(): kernel_size, stride and dilation must be positive, got kernel_size=", k,
                ", stride=", stride, ", dilation=", dilation);
    EMBER_CHECK(pad[i] >= 0 && pad[i] <= k[i] / 2, ValueError,
                "pad should be at most half of kernel size, but got pad=", pad,
                " and kernel_size=", k);
    total[i] = 2 * pad[i];
  }
  const int64_t in[3] = {x.size(-3), x.size(-2), x.size(-1)};
  const Window g = nn::detail::volume_window(1, in, k.data(), stride.data(), pad.data(), total,
                                             dilation.data(), ceil_mode);
  EMBER_CHECK(g.out_d > 0 && g.out_h > 0 && g.out_w > 0, ValueError, "Given input size: (",
              x.size(-4), "x", in[0], "x", in[1], "x", in[2], "). Calculated output size: (",
              x.size(-4), "x", g.out_d, "x", g.out_h, "x", g.out_w, "). Output size is too small");
  return g;
}

// x's shape with the last three dims replaced by out.
DimVector pooled3d_shape(const Tensor& x, int64_t out_d, int64_t out_h, int64_t out_w) {
  DimVector shape(x.sizes());
  shape[x.dim() - 3] = out_d;
  shape[x.dim() - 2] = out_h;
  shape[x.dim() - 1] = out_w;
  return shape;
}

int64_t volumes_of(const Tensor& x) {
  return x.numel() / std::max<int64_t>(x.size(-3) * x.size(-2) * x.size(-1), 1);
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input,
                                                   ExpandingArray<3> kernel_size,
                                                   std::optional<ExpandingArray<3>> stride,
                                                   ExpandingArray<3> padding,
                                                   ExpandingArray<3> dilation, bool ceil_mode) {
  const Window g = pool3d_geometry(input, kernel_size, stride.value_or(kernel_size), padding,
                                   dilation, ceil_mode, "max_pool3d");
  auto [values, indices] =
      max_pool_planes(input.reshape({volumes_of(input), g.depth, g.height, g.width}), g);
  const DimVector shape = pooled3d_shape(input, g.out_d, g.out_h, g.out_w);
  return {values.reshape(shape), indices.reshape(shape)};
}

Tensor max_pool3d(const Tensor& input, ExpandingArray<3> kernel_size,
                  std::optional<ExpandingArray<3>> stride, ExpandingArray<3> padding,
                  ExpandingArray<3> dilation, bool ceil_mode) {
  return std::get<0>(
      max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor avg_pool3d(const Tensor& input, ExpandingArray<3> kernel_size,
                  std::optional<ExpandingArray<3>> stride_opt, ExpandingArray<3> padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const ExpandingArray<3> stride = stride_opt.value_or(kernel_size);
  EMBER_CHECK(!divisor_override || *divisor_override != 0, ValueError, "divisor must be not zero");
  const Window g = pool3d_geometry(input, kernel_size, stride, padding, 1, ceil_mode, "avg_pool3d");
  // Each volume is a one-channel input; vol2col's zero padding adds nothing to the sums.
  const Tensor windows = im2col_columns(
      input.reshape({volumes_of(input), 1, g.depth, g.height, g.width}), g);  // [P, window, L]
  // The divisor of each output position, as PyTorch's kernel computes it: the window clipped to
  // the padded input (count_include_pad) or to the input itself.
  const int64_t in[3] = {g.depth, g.height, g.width};
  const int64_t out[3] = {g.out_d, g.out_h, g.out_w};
  std::vector<double> div;
  div.reserve(static_cast<size_t>(g.positions()));
  int64_t o[3];
  for (o[0] = 0; o[0] < out[0]; ++o[0]) {
    for (o[1] = 0; o[1] < out[1]; ++o[1]) {
      for (o[2] = 0; o[2] < out[2]; ++o[2]) {
        int64_t pool_size = 1, inside = 1;
        for (int d = 0; d < 3; ++d) {
          const int64_t start = o[d] * stride[d] - padding[d];
          const int64_t end = std::min(start + kernel_size[d], in[d] + padding[d]);
          pool_size *= end - start;
          inside *= std::min(end, in[d]) - std::max<int64_t>(start, 0);
        }
        div.push_back(divisor_override    ? static_cast<double>(*divisor_override)
                      : count_include_pad ? static_cast<double>(pool_size)
                                          : static_cast<double>(inside));
      }
    }
  }
  const Tensor divisor = tensor(div, TensorOptions(input.dtype()).device(input.device()));
  return (windows.sum({1}) / divisor).reshape(pooled3d_shape(input, out[0], out[1], out[2]));
}

namespace {

// The adaptive windows of every [D, H, W] volume: [volumes, L, K] with short windows padded by
// pad_value, the flat position of each window element (index, [L * K]; D * H * W for padding)
// and each window's true size.
struct AdaptiveWindows3d {
  Tensor windows, index;
  std::vector<double> sizes;
  int64_t L, K;
  DimVector output_shape;
};

AdaptiveWindows3d adaptive_windows_3d(const Tensor& input, ExpandingArray<3> output_size,
                                      double pad_value, const char* op) {
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5, ValueError, op,
              "(): Expected 4D or 5D tensor, but got ", input.sizes());
  EMBER_CHECK(input.is_floating_point(), TypeError, op, "(): expected a floating point input, got ",
              python_name(input.dtype()));
  EMBER_CHECK(output_size[0] > 0 && output_size[1] > 0 && output_size[2] > 0, ValueError, op,
              "(): output_size must be positive, got ", output_size);
  const int64_t in[3] = {input.size(-3), input.size(-2), input.size(-1)};
  EMBER_CHECK(in[0] > 0 && in[1] > 0 && in[2] > 0, ValueError, op,
              "(): expected non-empty spatial dims, got input shape ", input.sizes());
  AdaptiveWindows3d a;
  a.L = output_size[0] * output_size[1] * output_size[2];
  a.index = nn::detail::adaptive_window_index_3d(in, output_size.data(), input.device(), &a.sizes);
  a.K = a.index.numel() / a.L;
  a.windows = nn::detail::gather_windows(input.reshape({volumes_of(input), in[0] * in[1] * in[2]}),
                                         a.index, a.L, a.K, pad_value);
  a.output_shape = pooled3d_shape(input, output_size[0], output_size[1], output_size[2]);
  return a;
}

}  // namespace

Tensor adaptive_avg_pool3d(const Tensor& input, ExpandingArray<3> output_size) {
  AdaptiveWindows3d a = adaptive_windows_3d(input, output_size, 0.0, "adaptive_avg_pool3d");
  const Tensor divisor = tensor(a.sizes, TensorOptions(input.dtype()).device(input.device()));
  return (a.windows.sum({2}) / divisor).reshape(a.output_shape);
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& input, ExpandingArray<3> output_size) {
  // Short windows are padded with -inf, which never wins.
  AdaptiveWindows3d a = adaptive_windows_3d(
      input, output_size, -std::numeric_limits<double>::infinity(), "adaptive_max_pool3d");
  auto [values, within] = a.windows.max(2);  // [volumes, L]
  const int64_t volumes = a.windows.size(0);
  const Tensor positions = a.index.view({1, a.L, a.K})
                               .expand({volumes, a.L, a.K})
                               .gather(2, within.unsqueeze(2))
                               .squeeze(2);
  return {values.reshape(a.output_shape), positions.reshape(a.output_shape)};
}

namespace nn {
namespace {

void check_module_input(const Module& m, const Tensor& input) {
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5, ValueError, detail::describe(m),
              ": expected a 4-D or 5-D input, got shape ", input.sizes());
}

}  // namespace

Tensor MaxPool3dImpl::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}
std::tuple<Tensor, Tensor> MaxPool3dImpl::forward_with_indices(const Tensor& input) {
  check_module_input(*this, input);
  return ember::max_pool3d_with_indices(input, options.kernel_size(), options.stride(),
                                        options.padding(), options.dilation(), options.ceil_mode());
}
void MaxPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::MaxPool3d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}

Tensor AvgPool3dImpl::forward(const Tensor& input) {
  check_module_input(*this, input);
  return ember::avg_pool3d(input, options.kernel_size(), options.stride(), options.padding(),
                           options.ceil_mode(), options.count_include_pad(),
                           options.divisor_override());
}
void AvgPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::AvgPool3d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
}

Tensor AdaptiveAvgPool3dImpl::forward(const Tensor& input) {
  check_module_input(*this, input);
  return ember::adaptive_avg_pool3d(input, options.output_size());
}
void AdaptiveAvgPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::AdaptiveAvgPool3d(output_size=" << options.output_size() << ")";
}

Tensor AdaptiveMaxPool3dImpl::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}
std::tuple<Tensor, Tensor> AdaptiveMaxPool3dImpl::forward_with_indices(const Tensor& input) {
  check_module_input(*this, input);
  return ember::adaptive_max_pool3d(input, options.output_size());
}
void AdaptiveMaxPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::AdaptiveMaxPool3d(output_size=" << options.output_size() << ")";
}

}  // namespace nn
}  // namespace ember
