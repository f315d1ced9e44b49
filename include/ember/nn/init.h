#pragma once
// nn::init: in-place initialisers with PyTorch's formulas. They run under NoGradGuard, so they
// may be applied to parameters that require grad.
#include <tuple>
#include <variant>

#include "ember/nn/enum.h"
#include "ember/tensor.h"

namespace ember::nn::init {

using NonlinearityType =
    std::variant<enumtype::kLinear, enumtype::kConv1D, enumtype::kConv2D, enumtype::kConv3D,
                 enumtype::kConvTranspose1D, enumtype::kConvTranspose2D, enumtype::kConvTranspose3D,
                 enumtype::kSigmoid, enumtype::kTanh, enumtype::kReLU, enumtype::kLeakyReLU>;
using FanModeType = std::variant<enumtype::kFanIn, enumtype::kFanOut>;

// The recommended gain for a nonlinearity (param: leaky_relu's negative slope).
EMBER_API double calculate_gain(NonlinearityType nonlinearity, double param = 0.01);
// (fan_in, fan_out) of a weight of at least 2 dims: size(1) and size(0) times the kernel size.
EMBER_API std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

EMBER_API Tensor constant_(Tensor tensor, Scalar value);
EMBER_API Tensor ones_(Tensor tensor);
EMBER_API Tensor zeros_(Tensor tensor);
EMBER_API Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
EMBER_API Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
// N(mean, std^2) truncated to [a, b] (PyTorch's Python nn.init.trunc_normal_; libtorch lacks it):
// a uniform draw between the normal CDF's values at a and b, mapped back through erfinv.
EMBER_API Tensor trunc_normal_(Tensor tensor, double mean = 0, double std = 1, double a = -2,
                               double b = 2);
// U(-b, b) with b = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a).
EMBER_API Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanModeType mode = kFanIn,
                                  NonlinearityType nonlinearity = kLeakyReLU);
// N(0, std^2) with std = gain / sqrt(fan).
EMBER_API Tensor kaiming_normal_(Tensor tensor, double a = 0, FanModeType mode = kFanIn,
                                 NonlinearityType nonlinearity = kLeakyReLU);
// U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out)).
EMBER_API Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
// N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)).
EMBER_API Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
// The identity matrix (2-D tensors).
EMBER_API Tensor eye_(Tensor matrix);
// The identity convolution: zeros but [i, i, centre...] = 1 (3-D to 5-D tensors); with groups,
// the identity of each group's block of output channels (PyTorch's Python dirac_(tensor, groups)).
EMBER_API Tensor dirac_(Tensor tensor, int64_t groups = 1);
// A (semi-)orthogonal matrix times gain: Q of the QR factorisation of a normal draw, made unique
// by the signs of R's diagonal; tensors of more than 2 dims are flattened after dim 0.
EMBER_API Tensor orthogonal_(Tensor tensor, double gain = 1.0);
// N(0, std^2) with ceil(sparsity * rows) randomly chosen zeros in every column (2-D tensors).
EMBER_API Tensor sparse_(Tensor tensor, double sparsity, double std = 0.01);

}  // namespace ember::nn::init
