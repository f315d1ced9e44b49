#pragma once
// Options of F::grid_sample (libtorch's GridSampleFuncOptions).
#include <optional>
#include <variant>

#include "ember/nn/arg.h"
#include "ember/nn/enum.h"

namespace ember::nn::functional {

struct GridSampleFuncOptions {
  using mode_t = std::variant<enumtype::kBilinear, enumtype::kNearest>;
  using padding_mode_t = std::variant<enumtype::kZeros, enumtype::kBorder, enumtype::kReflection>;
  EMBER_ARG(mode_t, mode) = kBilinear;
  // Where samples outside [-1, 1] read: zeros, the nearest border value, or the reflected point.
  EMBER_ARG(padding_mode_t, padding_mode) = kZeros;
  // -1 and 1 are the centres of the corner pixels (true) or their outer edges (false, unset).
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

}  // namespace ember::nn::functional
