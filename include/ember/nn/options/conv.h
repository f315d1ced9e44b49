#pragma once
// Options of the convolutions (Conv1d/2d/3d, ConvTranspose1d/2d/3d) and of their
// functional forms, as libtorch's templates over the number of spatial dims D.
#include <cstdint>
#include <initializer_list>
#include <variant>

#include "ember/nn/arg.h"
#include "ember/nn/enum.h"
#include "ember/nn/expanding_array.h"
#include "ember/tensor.h"

namespace ember::nn {

// Padding: explicit sizes, or kValid (none) / kSame (output size = input size at stride 1).
template <size_t D>
using conv_padding_nd_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;
using conv_padding_t = conv_padding_nd_t<2>;
// What the padded border holds: zeros, or the input reflected, replicated or wrapped around.
using conv_padding_mode_t =
    std::variant<enumtype::kZeros, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;

template <size_t D>
struct ConvOptions {
  using padding_t = conv_padding_nd_t<D>;
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  // padding({top_bottom, left_right}): a braced list is the explicit sizes, as in libtorch.
  decltype(auto) padding(std::initializer_list<int64_t> il) {
    return padding(padding_t(ExpandingArray<D>(il)));
  }

 private:
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(conv_padding_mode_t, padding_mode) = kZeros;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

// The transposed convolutions: output_padding adds that many rows/columns on one side of the
// output, to pick among the sizes a strided convolution maps onto the same input size.
template <size_t D>
struct ConvTransposeOptions {
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  // Only kZeros, as in libtorch; another mode is refused when the module is built.
  EMBER_ARG(conv_padding_mode_t, padding_mode) = kZeros;
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

namespace functional {
template <size_t D>
struct ConvFuncOptions {
  using padding_t = conv_padding_nd_t<D>;
  EMBER_ARG(Tensor, bias);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  // padding({top_bottom, left_right}): a braced list is the explicit sizes, as in libtorch.
  decltype(auto) padding(std::initializer_list<int64_t> il) {
    return padding(padding_t(ExpandingArray<D>(il)));
  }

 private:
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

template <size_t D>
struct ConvTransposeFuncOptions {
  EMBER_ARG(Tensor, bias);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;
}  // namespace functional

}  // namespace ember::nn
