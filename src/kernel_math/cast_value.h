#pragma once
// The value conversion of every dtype cast (Tensor::to, copy_), shared by the CPU copy loops and
// the CUDA cast kernel so both devices give the same result. Semantics are PyTorch's on the CPU,
// written so that C++ defines them (a plain static_cast of an out-of-range float to an integer is
// undefined: x86 wraps -1.0 -> uint8 to 255, CUDA saturates it to 0):
//  - floating -> bool: x != 0 (NaN is true);
//  - floating -> integer: truncate to int64 (NaN -> 0, beyond int64 saturates, as CUDA does),
//    then the integer conversion, which wraps modulo 2^bits (-1.0 -> uint8 is 255, 300.7 -> 44);
//  - half / bfloat16 sources convert through float (acc_t);
//  - everything else is the plain static_cast (integer -> integer wraps, -> floating rounds).
#include <cstdint>
#include <type_traits>

#include "ember/macros.h"
#include "kernel_math/dispatch.h"

namespace ember {

// Truncation of a float or double to int64 without undefined behaviour.
template <typename F>
EMBER_HD_INLINE int64_t float_to_int64(F x) {
  if (!(x == x)) return 0;
  if (x >= static_cast<F>(9223372036854775808.0)) return INT64_MAX;  // 2^63
  if (x < static_cast<F>(-9223372036854775808.0)) return INT64_MIN;  // -2^63 converts exactly
  return static_cast<int64_t>(x);
}

template <typename dst_t, typename src_t>
EMBER_HD_INLINE dst_t cast_value(src_t x) {
  if constexpr (std::is_same_v<dst_t, src_t>) {
    return x;
  } else if constexpr (!std::is_same_v<acc_t<src_t>, src_t>) {  // half, bfloat16: via float
    return cast_value<dst_t, acc_t<src_t>>(static_cast<acc_t<src_t>>(x));
  } else if constexpr (std::is_floating_point_v<src_t> && std::is_same_v<dst_t, bool>) {
    return x != src_t(0);
  } else if constexpr (std::is_floating_point_v<src_t> && std::is_integral_v<dst_t>) {
    return static_cast<dst_t>(float_to_int64(x));
  } else {
    return static_cast<dst_t>(x);
  }
}

}  // namespace ember
