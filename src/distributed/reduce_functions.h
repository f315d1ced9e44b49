#pragma once
// Element-wise combiners handed to Gloo: c = a (op) b over n elements. Half and BFloat16 combine
// in float and round once, as PyTorch's CPU kernels do.
#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "ember/distributed/reduce_op.h"
#include "ember/dtype.h"

namespace ember::distributed::reduce {

template <typename T>
using Compute = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float,
                                   std::conditional_t<std::is_same_v<T, bool>, bool, T>>;

template <typename T, ReduceOp Op>
inline T combine(T a, T b) {
  using C = Compute<T>;
  C x = static_cast<C>(a), y = static_cast<C>(b);
  if constexpr (std::is_same_v<T, bool>) {
    if constexpr (Op == ReduceOp::SUM || Op == ReduceOp::MAX) return x || y;
    return x && y;  // PRODUCT, MIN
  } else if constexpr (Op == ReduceOp::SUM || Op == ReduceOp::AVG) {
    return static_cast<T>(x + y);
  } else if constexpr (Op == ReduceOp::PRODUCT) {
    return static_cast<T>(x * y);
  } else if constexpr (Op == ReduceOp::MIN) {
    // NaN wins, as in torch.minimum.
    return (x != x || x < y) ? a : (y != y ? b : (x == y ? a : b));
  } else {
    return (x != x || x > y) ? a : (y != y ? b : (x == y ? a : b));
  }
}

// The signature of gloo::AllreduceOptions::setReduceFunction.
template <typename T, ReduceOp Op>
void combine3(void* c, const void* a, const void* b, size_t n) {
  T* out = static_cast<T*>(c);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) out[i] = combine<T, Op>(x[i], y[i]);
}

// The signature of gloo::ReductionFunction<T> (in place into a).
template <typename T, ReduceOp Op>
void combine2(T* a, const T* b, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] = combine<T, Op>(a[i], b[i]);
}

}  // namespace ember::distributed::reduce
