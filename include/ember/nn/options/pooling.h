#pragma once
// Options of the 2-D pooling layers and their functional forms.
#include <cstdint>
#include <optional>

#include "ember/nn/arg.h"
#include "ember/nn/expanding_array.h"

namespace ember::nn {

struct MaxPool2dOptions {
  MaxPool2dOptions(ExpandingArray<2> kernel_size)  // NOLINT: implicit as in libtorch
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  // Defaults to kernel_size.
  EMBER_ARG(ExpandingArray<2>, stride);
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(bool, ceil_mode) = false;
};

struct AvgPool2dOptions {
  AvgPool2dOptions(ExpandingArray<2> kernel_size)  // NOLINT: implicit as in libtorch
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, stride);
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  EMBER_ARG(bool, count_include_pad) = true;
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};

struct AdaptiveAvgPool2dOptions {
  AdaptiveAvgPool2dOptions(ExpandingArray<2> output_size)  // NOLINT: implicit as in libtorch
      : output_size_(output_size) {}
  EMBER_ARG(ExpandingArray<2>, output_size);
};

namespace functional {
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
}  // namespace functional

}  // namespace ember::nn
