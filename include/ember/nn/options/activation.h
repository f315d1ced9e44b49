#pragma once
// Options of the activation layers and their functional forms.
#include <cstdint>
#include <optional>
#include <string>

#include "ember/dtype.h"
#include "ember/nn/arg.h"

namespace ember::nn {

struct ReLUOptions {
  ReLUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(bool, inplace);
};

struct GELUOptions {
  // "none" (exact, erf) or "tanh".
  EMBER_ARG(std::string, approximate) = "none";
};

struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, dim);
};
struct LogSoftmaxOptions {
  LogSoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, dim);
};

namespace functional {
using ReLUFuncOptions = ReLUOptions;
using GELUFuncOptions = GELUOptions;
struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};
struct LogSoftmaxFuncOptions {
  LogSoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};
}  // namespace functional

}  // namespace ember::nn
