#pragma once
// The type cumsum/cumprod accumulate in, on every backend: PyTorch's CPU accumulation type (double
// for float, float for half and bfloat16), so long float32 scans match PyTorch's CPU bit for bit
// and a device's result matches the CPU's.
#include <type_traits>

#include "ember/macros.h"
#include "kernel_math/dispatch.h"
#include "kernel_math/ops_list.h"

namespace ember {

template <typename T>
using scan_acc_t = std::conditional_t<std::is_same_v<T, float>, double, acc_t<T>>;

template <typename A>
EMBER_HD inline A scan_combine(ScanOp op, A acc, A x) {
  return op == ScanOp::Sum ? static_cast<A>(acc + x) : static_cast<A>(acc * x);
}

}  // namespace ember
