#pragma once
// Options of BatchNorm1d/2d, LayerNorm and their functional forms.
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

struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape)  // NOLINT: implicit as in libtorch
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, elementwise_affine) = true;
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
