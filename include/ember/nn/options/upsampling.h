#pragma once
// Options of Upsample and F::interpolate.
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "ember/nn/arg.h"
#include "ember/nn/enum.h"

namespace ember::nn {

// Upsample: F::interpolate as a module, by size or scale_factor (exactly one of the two).
struct UpsampleOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear,
                              enumtype::kBicubic, enumtype::kTrilinear>;
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(mode_t, mode) = kNearest;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

}  // namespace ember::nn

namespace ember::nn::functional {

struct InterpolateFuncOptions {
  using mode_t =
      std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                   enumtype::kTrilinear, enumtype::kArea, enumtype::kNearestExact>;
  // The output's spatial sizes, or a factor per spatial dim (exactly one of the two).
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(mode_t, mode) = kNearest;
  // Linear modes only: map corner pixel centres onto each other (nullopt means false).
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
  // With scale_factor: derive the sampling scale from the rounded output size instead.
  EMBER_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  EMBER_ARG(bool, antialias) = false;
};

}  // namespace ember::nn::functional
