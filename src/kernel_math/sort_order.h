#pragma once
// The order sort, argsort and topk put elements in, shared by the CPU and CUDA kernels: NaN
// above every number (last when ascending, first when descending, as PyTorch), and equal keys in
// their input order (a stable sort). Keys compared together with their input positions form a
// total order, so every algorithm (std::sort, a bitonic network, a merge) gives the same result.
#include <cstdint>

#include "ember/macros.h"
#include "kernel_math/dispatch.h"

namespace ember {

// True when (a at input position ia) comes before (b at input position ib).
template <typename T>
EMBER_HD inline bool sorts_before(T a, int64_t ia, T b, int64_t ib, bool descending) {
  using A = acc_t<T>;
  const A x = static_cast<A>(a), y = static_cast<A>(b);
  const bool x_nan = x != x, y_nan = y != y;  // NOLINT: NaN test that also compiles for integers
  if (x_nan || y_nan) {
    if (x_nan && y_nan) return ia < ib;
    return descending ? x_nan : y_nan;
  }
  if (x < y) return !descending;
  if (y < x) return descending;
  return ia < ib;
}

}  // namespace ember
