// The 1-D pools (max, average, adaptive average and max) and their modules: the 2-D pools over
// [N, C, 1, L], so they share those kernels, their gradients and PyTorch's window arithmetic.
#include "ember/nn/modules/pooling.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "nn/describe.h"

namespace ember {
namespace {

void check_1d_input(const Tensor& input, const char* op) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, ValueError, op,
              "(): expected a 2-D (unbatched) or 3-D (batched) input, got shape ", input.sizes());
}

std::optional<ExpandingArray<2>> stride_2d(const std::optional<ExpandingArray<1>>& stride) {
  if (!stride) return std::nullopt;
  return ExpandingArray<2>({1, (*stride)[0]});
}

std::tuple<Tensor, Tensor> squeezed(std::tuple<Tensor, Tensor> pair) {
  return {std::get<0>(pair).squeeze(-2), std::get<1>(pair).squeeze(-2)};
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   ExpandingArray<1> kernel_size,
                                                   std::optional<ExpandingArray<1>> stride,
                                                   ExpandingArray<1> padding,
                                                   ExpandingArray<1> dilation, bool ceil_mode) {
  check_1d_input(input, "max_pool1d");
  // The indices are positions h * W + w of a [1, L] plane: the position along L itself.
  return squeezed(max_pool2d_with_indices(input.unsqueeze(-2), {1, kernel_size[0]},
                                          stride_2d(stride), {0, padding[0]}, {1, dilation[0]},
                                          ceil_mode));
}

Tensor max_pool1d(const Tensor& input, ExpandingArray<1> kernel_size,
                  std::optional<ExpandingArray<1>> stride, ExpandingArray<1> padding,
                  ExpandingArray<1> dilation, bool ceil_mode) {
  check_1d_input(input, "max_pool1d");
  return max_pool2d(input.unsqueeze(-2), {1, kernel_size[0]}, stride_2d(stride), {0, padding[0]},
                    {1, dilation[0]}, ceil_mode)
      .squeeze(-2);
}

Tensor avg_pool1d(const Tensor& input, ExpandingArray<1> kernel_size,
                  std::optional<ExpandingArray<1>> stride, ExpandingArray<1> padding,
                  bool ceil_mode, bool count_include_pad) {
  check_1d_input(input, "avg_pool1d");
  return avg_pool2d(input.unsqueeze(-2), {1, kernel_size[0]}, stride_2d(stride), {0, padding[0]},
                    ceil_mode, count_include_pad)
      .squeeze(-2);
}

Tensor adaptive_avg_pool1d(const Tensor& input, ExpandingArray<1> output_size) {
  check_1d_input(input, "adaptive_avg_pool1d");
  return adaptive_avg_pool2d(input.unsqueeze(-2), {1, output_size[0]}).squeeze(-2);
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, ExpandingArray<1> output_size) {
  check_1d_input(input, "adaptive_max_pool1d");
  return squeezed(adaptive_max_pool2d(input.unsqueeze(-2), {1, output_size[0]}));
}

namespace nn {

Tensor MaxPool1dImpl::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}
std::tuple<Tensor, Tensor> MaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return ember::max_pool1d_with_indices(input, options.kernel_size(), options.stride(),
                                        options.padding(), options.dilation(), options.ceil_mode());
}
void MaxPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::MaxPool1d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}

Tensor AvgPool1dImpl::forward(const Tensor& input) {
  return ember::avg_pool1d(input, options.kernel_size(), options.stride(), options.padding(),
                           options.ceil_mode(), options.count_include_pad());
}
void AvgPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::AvgPool1d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
}

Tensor AdaptiveAvgPool1dImpl::forward(const Tensor& input) {
  return ember::adaptive_avg_pool1d(input, options.output_size());
}
void AdaptiveAvgPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::AdaptiveAvgPool1d(output_size=" << options.output_size() << ")";
}

Tensor AdaptiveMaxPool1dImpl::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}
std::tuple<Tensor, Tensor> AdaptiveMaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return ember::adaptive_max_pool1d(input, options.output_size());
}
void AdaptiveMaxPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::AdaptiveMaxPool1d(output_size=" << options.output_size() << ")";
}

}  // namespace nn
}  // namespace ember
