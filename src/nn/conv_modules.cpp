// The convolution modules: Conv1d/2d/3d, ConvTranspose1d/2d/3d. Parameters,
// PyTorch's initialisation, padding modes, output_size, and libtorch's printout; the arithmetic is
// in conv.cpp and conv_transpose.cpp.
#include "ember/nn/modules/conv.h"

#include <cmath>
#include <string>

#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "nn/describe.h"

namespace ember::nn {
namespace {

// PyTorch's reset_parameters of _ConvNd: kaiming_uniform_(a=sqrt(5)) and a bias uniform in
// +-1/sqrt(fan_in), fan_in from the weight as laid out (transposed weights included).
void init_conv_parameters(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(weight);
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

std::vector<int64_t> weight_shape(int64_t first, int64_t second, const std::vector<int64_t>& k) {
  std::vector<int64_t> shape{first, second};
  shape.insert(shape.end(), k.begin(), k.end());
  return shape;
}

void check_groups(int64_t in_channels, int64_t out_channels, int64_t groups,
                  const std::string& name) {
  EMBER_CHECK(groups > 0, ValueError, name, ": groups must be a positive integer, got ", groups);
  EMBER_CHECK(in_channels % groups == 0, ValueError, name,
              ": in_channels must be divisible by groups (", in_channels, " % ", groups, " != 0)");
  EMBER_CHECK(out_channels % groups == 0, ValueError, name,
              ": out_channels must be divisible by groups (", out_channels, " % ", groups,
              " != 0)");
}

// A [N, C, spatial...] or unbatched [C, spatial...] input with in_channels channels.
void check_conv_input(const Tensor& input, size_t spatial_dims, int64_t in_channels,
                      const std::string& who) {
  const int64_t batched = static_cast<int64_t>(spatial_dims) + 2;
  const char* positions = spatial_dims == 1 ? "L" : spatial_dims == 2 ? "H, W" : "D, H, W";
  EMBER_CHECK(input.dim() == batched || input.dim() == batched - 1, ValueError, who,
              ": expected a ", batched, "-D input [N, ", in_channels, ", ", positions, "] (or ",
              batched - 1, "-D unbatched), got shape ", input.sizes());
  EMBER_CHECK(input.size(input.dim() - static_cast<int64_t>(spatial_dims) - 1) == in_channels,
              ValueError, who, ": expected input with ", in_channels, " channels, got shape ",
              input.sizes());
}

template <size_t D>
std::string module_name(const char* kind) {
  return std::string(kind) + std::to_string(D) + "d";
}

}  // namespace

namespace detail {

// ---- Conv1d, Conv2d ----

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::reset() {
  const std::string name = module_name<D>("Conv");
  check_groups(options.in_channels(), options.out_channels(), options.groups(), name);
  if (std::holds_alternative<enumtype::kSame>(options.padding())) {
    for (size_t i = 0; i < D; ++i) {
      EMBER_CHECK(options.stride()[i] == 1, ValueError, name,
                  ": padding='same' is not supported for strided convolutions");
    }
  }
  weight = this->register_parameter(
      "weight",
      ember::empty(weight_shape(options.out_channels(), options.in_channels() / options.groups(),
                                options.kernel_size().vec())));
  bias = this->register_parameter(
      "bias", options.bias() ? ember::empty({options.out_channels()}) : Tensor(), options.bias());
  reset_parameters();
}

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::reset_parameters() {
  init_conv_parameters(weight, bias);
}

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::check_input(const Tensor& input) const {
  check_conv_input(input, D, options.in_channels(), describe(*this));
}

template <size_t D, typename Derived>
std::pair<Tensor, typename ConvOptions<D>::padding_t> ConvNdImpl<D, Derived>::apply_padding_mode(
    const Tensor& input) const {
  if (std::holds_alternative<enumtype::kZeros>(options.padding_mode())) {
    return {input, options.padding()};
  }
  // (before, after) amounts per spatial dim, last dim first as pad() takes them.
  std::vector<int64_t> amounts(2 * D, 0);
  for (size_t i = 0; i < D; ++i) {
    int64_t before = 0, after = 0;
    if (const auto* p = std::get_if<ExpandingArray<D>>(&options.padding())) {
      before = after = (*p)[i];
    } else if (std::holds_alternative<enumtype::kSame>(options.padding())) {
      const int64_t total = options.dilation()[i] * (options.kernel_size()[i] - 1);
      before = total / 2;
      after = total - before;
    }
    amounts[2 * (D - 1 - i)] = before;
    amounts[2 * (D - 1 - i) + 1] = after;
  }
  return {pad(input, amounts, enum_name(options.padding_mode())), ExpandingArray<D>(0)};
}

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::" << module_name<D>("Conv") << "(" << options.in_channels() << ", "
         << options.out_channels() << ", kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride();
  if (std::holds_alternative<enumtype::kValid>(options.padding())) {
    stream << ", padding='valid'";
  } else if (std::holds_alternative<enumtype::kSame>(options.padding())) {
    stream << ", padding='same'";
  } else if (const auto& p = std::get<ExpandingArray<D>>(options.padding());
             p != ExpandingArray<D>(0)) {
    stream << ", padding=" << p;
  }
  if (options.dilation() != ExpandingArray<D>(1)) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << std::boolalpha << ", bias=" << options.bias();
  if (!std::holds_alternative<enumtype::kZeros>(options.padding_mode())) {
    stream << ", padding_mode=" << detail::printed_enum_name(options.padding_mode());
  }
  stream << ")";
}

// ---- ConvTranspose1d, ConvTranspose2d ----

template <size_t D, typename Derived>
void ConvTransposeNdImpl<D, Derived>::reset() {
  const std::string name = module_name<D>("ConvTranspose");
  check_groups(options.in_channels(), options.out_channels(), options.groups(), name);
  EMBER_CHECK(std::holds_alternative<enumtype::kZeros>(options.padding_mode()), ValueError,
              "Only \"zeros\" padding mode is supported for ", name, ", got ",
              detail::printed_enum_name(options.padding_mode()));
  weight = this->register_parameter(
      "weight",
      ember::empty(weight_shape(options.in_channels(), options.out_channels() / options.groups(),
                                options.kernel_size().vec())));
  bias = this->register_parameter(
      "bias", options.bias() ? ember::empty({options.out_channels()}) : Tensor(), options.bias());
  reset_parameters();
}

template <size_t D, typename Derived>
void ConvTransposeNdImpl<D, Derived>::reset_parameters() {
  init_conv_parameters(weight, bias);
}

template <size_t D, typename Derived>
void ConvTransposeNdImpl<D, Derived>::check_input(const Tensor& input) const {
  check_conv_input(input, D, options.in_channels(), describe(*this));
}

template <size_t D, typename Derived>
ExpandingArray<D> ConvTransposeNdImpl<D, Derived>::output_padding_for(
    const Tensor& input, const std::optional<std::vector<int64_t>>& output_size) const {
  if (!output_size) return options.output_padding();
  std::vector<int64_t> size = *output_size;
  if (size.size() == D + 2) size.erase(size.begin(), size.begin() + 2);
  EMBER_CHECK(size.size() == D, ValueError, describe(*this), ": output_size must have ", D, " or ",
              D + 2, " elements (got ", output_size->size(), ")");
  std::vector<int64_t> low(D), high(D), spatial(D);
  ExpandingArray<D> result(0);
  bool fits = true;
  for (size_t i = 0; i < D; ++i) {
    spatial[i] = input.size(input.dim() - static_cast<int64_t>(D) + static_cast<int64_t>(i));
    low[i] = (spatial[i] - 1) * options.stride()[i] - 2 * options.padding()[i] +
             options.dilation()[i] * (options.kernel_size()[i] - 1) + 1;
    high[i] = low[i] + options.stride()[i] - 1;
    fits = fits && size[i] >= low[i] && size[i] <= high[i];
    result[i] = size[i] - low[i];
  }
  EMBER_CHECK(fits, ValueError, describe(*this), ": requested an output size of ",
              IntArrayRef(size), ", but valid sizes range from ", IntArrayRef(low), " to ",
              IntArrayRef(high), " (for an input of ", IntArrayRef(spatial), ")");
  return result;
}

template <size_t D, typename Derived>
void ConvTransposeNdImpl<D, Derived>::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::" << module_name<D>("ConvTranspose") << "(" << options.in_channels() << ", "
         << options.out_channels() << ", kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride();
  if (options.padding() != ExpandingArray<D>(0)) stream << ", padding=" << options.padding();
  if (options.dilation() != ExpandingArray<D>(1)) stream << ", dilation=" << options.dilation();
  if (options.output_padding() != ExpandingArray<D>(0)) {
    stream << ", output_padding=" << options.output_padding();
  }
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << std::boolalpha << ", bias=" << options.bias();
  stream << ")";
}

template class ConvNdImpl<1, Conv1dImpl>;
template class ConvNdImpl<2, Conv2dImpl>;
template class ConvTransposeNdImpl<1, ConvTranspose1dImpl>;
template class ConvTransposeNdImpl<2, ConvTranspose2dImpl>;
template class ConvNdImpl<3, Conv3dImpl>;
template class ConvTransposeNdImpl<3, ConvTranspose3dImpl>;

}  // namespace detail

Tensor Conv1dImpl::forward(const Tensor& input) {
  check_input(input);
  auto [x, padding] = apply_padding_mode(input);
  return conv1d_with_padding(x, weight, bias, options.stride(), padding, options.dilation(),
                             options.groups());
}

Tensor Conv2dImpl::forward(const Tensor& input) {
  check_input(input);
  auto [x, padding] = apply_padding_mode(input);
  return conv2d_with_padding(x, weight, bias, options.stride(), padding, options.dilation(),
                             options.groups());
}

Tensor ConvTranspose1dImpl::forward(const Tensor& input,
                                    const std::optional<std::vector<int64_t>>& output_size) {
  check_input(input);
  return conv_transpose1d(input, weight, bias, options.stride(), options.padding(),
                          output_padding_for(input, output_size), options.groups(),
                          options.dilation());
}

Tensor ConvTranspose2dImpl::forward(const Tensor& input,
                                    const std::optional<std::vector<int64_t>>& output_size) {
  check_input(input);
  return conv_transpose2d(input, weight, bias, options.stride(), options.padding(),
                          output_padding_for(input, output_size), options.groups(),
                          options.dilation());
}

Tensor Conv3dImpl::forward(const Tensor& input) {
  check_input(input);
  auto [x, padding] = apply_padding_mode(input);
  return conv3d_with_padding(x, weight, bias, options.stride(), padding, options.dilation(),
                             options.groups());
}

Tensor ConvTranspose3dImpl::forward(const Tensor& input,
                                    const std::optional<std::vector<int64_t>>& output_size) {
  check_input(input);
  return conv_transpose3d(input, weight, bias, options.stride(), options.padding(),
                          output_padding_for(input, output_size), options.groups(),
                          options.dilation());
}

}  // namespace ember::nn
