// round() and round(decimals). round keeps the dtype (integers pass through, as PyTorch); with
// decimals it scales by 10^|decimals| the way PyTorch's kernel does: nearbyint(x * 10^d) / 10^d,
// or nearbyint(x / 10^-d) * 10^-d for negative d. Half and bfloat16 are scaled in float and
// rounded to their type once, as PyTorch 2's kernel does (1.13 rounded x * 10^d to bfloat16 first,
// so round(-2.671875bf16, 2) gave -2.6875 instead of the nearest bfloat16 to -2.67). The gradient
// is zero.
#include <cmath>

#include "ops/elementwise.h"

namespace ember {

using autograd::variable_list;

Tensor round(const Tensor& a) {
  EMBER_CHECK(a.dtype() != kBool, TypeError, "\"round\" not implemented for 'Bool'");
  Tensor out = unary_kernel_call(UnaryOp::Round, a, a.dtype());
  if (autograd::needs_grad({a})) {
    autograd::record("RoundBackward0", out, {a},
                     [](const variable_list& g) { return variable_list{zeros_like(g[0])}; });
  }
  return out;
}

Tensor round(const Tensor& a, int64_t decimals) {
  EMBER_CHECK(is_floating_point(a.dtype()), TypeError, "round(decimals=", decimals,
              ") is not implemented for dtype ", python_name(a.dtype()),
              " (expected a floating point dtype)");
  if (decimals == 0) return round(a);
  if (a.dtype() == kHalf || a.dtype() == kBFloat16)
    return round(a.to(kFloat), decimals).to(a.dtype());
  const double ten_pow = std::pow(10.0, static_cast<double>(decimals > 0 ? decimals : -decimals));
  return decimals > 0 ? round(a * ten_pow) / ten_pow : round(a / ten_pow) * ten_pow;
}

Tensor Tensor::round(int64_t decimals) const {
  return ember::round(*this, decimals);
}

}  // namespace ember
