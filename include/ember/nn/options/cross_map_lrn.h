#pragma once
// Options of CrossMapLRN2d (libtorch's CrossMapLRN2dOptions).
#include <cstdint>

#include "ember/nn/arg.h"

namespace ember::nn {

struct CrossMapLRN2dOptions {
  CrossMapLRN2dOptions(int64_t size) : size_(size) {}  // NOLINT: implicit as in libtorch
  // The number of neighbouring channels each channel is normalised over.
  EMBER_ARG(int64_t, size);
  EMBER_ARG(double, alpha) = 1e-4;
  EMBER_ARG(double, beta) = 0.75;
  EMBER_ARG(int64_t, k) = 1;
};

}  // namespace ember::nn
