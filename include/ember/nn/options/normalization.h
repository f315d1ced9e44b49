#pragma once
// Options of BatchNorm1d/2d, LayerNorm, GroupNorm, InstanceNorm1d/2d and their functional forms.
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/nn/arg.h"
#include "ember/tensor.h"

namespace ember::nn {

struct BatchNormOptions {
  BatchNormOptions(int64_t num_features)  // NOLINT: implicit as in libtorch
      : num_features_(num_features) {}
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  // nullopt: running statistics are a cumulative average (PyTorch's momentum=None).
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape)  // NOLINT: implicit as in libtorch
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, elementwise_affine) = true;
};

struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(int64_t, num_channels);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, affine) = true;
};

// InstanceNorm normalises each sample's channel over its spatial positions; without
// track_running_stats (the default) it uses those statistics in eval mode too.
struct InstanceNormOptions {
  InstanceNormOptions(int64_t num_features)  // NOLINT: implicit as in libtorch
      : num_features_(num_features) {}
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(bool, affine) = false;
  EMBER_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;

// LocalResponseNorm: each element divided by (k + alpha * mean of the squares of `size`
// neighbouring channels)^beta (AlexNet).
struct LocalResponseNormOptions {
  LocalResponseNormOptions(int64_t size) : size_(size) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, size);
  EMBER_ARG(double, alpha) = 1e-4;
  EMBER_ARG(double, beta) = 0.75;
  EMBER_ARG(double, k) = 1.0;
};

namespace functional {
struct BatchNormFuncOptions {
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(Tensor, bias);
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};

struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(Tensor, bias);
  EMBER_ARG(double, eps) = 1e-5;
};

using LocalResponseNormFuncOptions = LocalResponseNormOptions;

struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups)  // NOLINT: implicit as in libtorch
      : num_groups_(num_groups) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(Tensor, bias);
  EMBER_ARG(double, eps) = 1e-5;
};

struct InstanceNormFuncOptions {
  EMBER_ARG(Tensor, running_mean);
  EMBER_ARG(Tensor, running_var);
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(Tensor, bias);
  EMBER_ARG(bool, use_input_stats) = true;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};

// F::normalize: input / max(||input||_p over dim, eps).
struct NormalizeFuncOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-12;
  // When set, the result is also written into this tensor (not differentiable, as in libtorch).
  EMBER_ARG(std::optional<Tensor>, out) = std::nullopt;
};
}  // namespace functional

}  // namespace ember::nn
