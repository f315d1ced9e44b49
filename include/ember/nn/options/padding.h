#pragma once
// Options of F::pad and of the padding modules (ReflectionPad, ReplicationPad, ConstantPad,
// ZeroPad2d).
#include <cstdint>
#include <variant>
#include <vector>

#include "ember/macros.h"
#include "ember/nn/arg.h"
#include "ember/nn/enum.h"
#include "ember/nn/expanding_array.h"

namespace ember::nn {

// padding: (left, right) of the last dim, then (top, bottom) of the one before, ... for D dims.
// Exported (EMBER_API) because the modules' shared template takes them as arguments.
template <size_t D>
struct EMBER_API ReflectionPadOptions {
  ReflectionPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
template <size_t D>
struct EMBER_API ReplicationPadOptions {
  ReplicationPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
template <size_t D>
struct EMBER_API ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value)
      : padding_(padding), value_(value) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
  EMBER_ARG(double, value);
};
struct EMBER_API ZeroPad2dOptions {
  ZeroPad2dOptions(ExpandingArray<4> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<4>, padding);
};
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;
using ReflectionPad3dOptions = ReflectionPadOptions<3>;
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;
using ReplicationPad3dOptions = ReplicationPadOptions<3>;
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

}  // namespace ember::nn

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
