#pragma once
// The shorthand the op_rows_*.cpp files write their rows in: input specs, domains, tolerances,
// and OP(expr), the op as a function of the inputs named a, b, c, d.
#include "ops/op_info.h"

namespace ember::testing::rows {

// OP(expr): the row's function, with the inputs named a, b, c, d as in the PyTorch expression.
#define OP(...)                                                 \
  [](const Args& x) -> Tensor {                                 \
    [[maybe_unused]] const Tensor& a = x.at(0);                 \
    [[maybe_unused]] const Tensor& b = x.size() > 1 ? x[1] : a; \
    [[maybe_unused]] const Tensor& c = x.size() > 2 ? x[2] : a; \
    [[maybe_unused]] const Tensor& d = x.size() > 3 ? x[3] : a; \
    return __VA_ARGS__;                                         \
  }

// float32 of `shape`; any dtype; int64 indices in [0, high); bool.
inline InputSpec F(std::vector<int64_t> shape, Domain d = Domain::Normal) {
  return {std::move(shape), kFloat, d};
}
inline InputSpec T(std::vector<int64_t> shape, ScalarType dtype, Domain d = Domain::Normal) {
  return {std::move(shape), dtype, d};
}
inline InputSpec Idx(std::vector<int64_t> shape, int64_t high) {
  return {std::move(shape), kLong, Domain::Index, high};
}
inline InputSpec B(std::vector<int64_t> shape) {
  return {std::move(shape), kBool, Domain::Bool};
}

constexpr Domain kPos = Domain::Positive;
constexpr Domain kAway = Domain::AwayFromZero;
constexpr Domain kSmall = Domain::SmallInt;
constexpr Domain kUnit = Domain::Unit;
// float32 GEMMs accumulate in different orders on different backends.
constexpr double kMmRtol = 1e-4, kMmAtol = 1e-5;

}  // namespace ember::testing::rows

namespace ember::testing::rows {

// A row whose result's shape depends on the values (nonzero, a boolean mask): on the meta device
// it raises NotImplementedError instead of giving a shape.
inline OpInfo data_dependent(OpInfo r) {
  r.data_dependent_shape = true;
  return r;
}

// A row whose gradients PyTorch cannot compute (an input it refuses to track, as batch_norm's
// running statistics): finite differences only.
inline OpInfo no_torch_gradients(OpInfo r) {
  r.torch_gradients = false;
  return r;
}

// Another spelling of the row's op (libtorch's method of a free function, or the reverse): the
// sweeps run it beside the op and hold it to the op's result on every device.
inline OpInfo also(OpInfo r, const char* form, OpFn fn) {
  r.forms.push_back({form, std::move(fn)});
  return r;
}

}  // namespace ember::testing::rows
