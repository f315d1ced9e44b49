#pragma once
// Options of F::pad.
#include <cstdint>
#include <variant>
#include <vector>

#include "ember/nn/arg.h"
#include "ember/nn/enum.h"

namespace ember::nn::functional {

struct PadFuncOptions {
  using mode_t = std::variant<enumtype::kConstant, enumtype::kReflect, enumtype::kReplicate,
                              enumtype::kCircular>;
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT: as in libtorch
  // (left, right) of the last dim, then (top, bottom) of the one before, ...
  EMBER_ARG(std::vector<int64_t>, pad);
  EMBER_ARG(mode_t, mode) = kConstant;
  // The fill value of kConstant padding.
  EMBER_ARG(double, value) = 0;
};

}  // namespace ember::nn::functional
