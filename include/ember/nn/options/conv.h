#pragma once
// Options of Conv2d and F::conv2d.
#include <cstdint>
#include <initializer_list>
#include <variant>

#include "ember/nn/arg.h"
#include "ember/nn/enum.h"
#include "ember/nn/expanding_array.h"
#include "ember/tensor.h"

namespace ember::nn {

// Padding: explicit sizes, or kValid (none) / kSame (output size = input size at stride 1).
using conv_padding_t = std::variant<ExpandingArray<2>, enumtype::kValid, enumtype::kSame>;
using conv_padding_mode_t = std::variant<enumtype::kZeros>;

struct Conv2dOptions {
  Conv2dOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
  EMBER_ARG(conv_padding_t, padding) = ExpandingArray<2>(0);

 public:
  // padding({top_bottom, left_right}): a braced list is the explicit sizes, as in libtorch.
  decltype(auto) padding(std::initializer_list<int64_t> il) {
    return padding(conv_padding_t(ExpandingArray<2>(il)));
  }

 private:
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(conv_padding_mode_t, padding_mode) = kZeros;
};

namespace functional {
struct Conv2dFuncOptions {
  EMBER_ARG(Tensor, bias);
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
  EMBER_ARG(conv_padding_t, padding) = ExpandingArray<2>(0);

 public:
  // padding({top_bottom, left_right}): a braced list is the explicit sizes, as in libtorch.
  decltype(auto) padding(std::initializer_list<int64_t> il) {
    return padding(conv_padding_t(ExpandingArray<2>(il)));
  }

 private:
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
};
}  // namespace functional

}  // namespace ember::nn
