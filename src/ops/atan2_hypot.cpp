// atan2(a, b), the angle of the point (b, a), and hypot(a, b) = sqrt(a^2 + b^2) without overflow.
// atan2 promotes integers to the default float dtype; hypot takes floating tensors only, as
// PyTorch 1.13 does.
#include "ops/elementwise.h"
#include "ops/promotion.h"

namespace ember {

using autograd::SavedTensor;
using autograd::sum_to;
using autograd::variable_list;

Tensor atan2(const Tensor& a, const Tensor& b) {
  ScalarType dt = float_result_type(result_type(a, b));
  Tensor out = binary_kernel_call(BinaryOp::Atan2, a, b, dt);
  if (autograd::needs_grad({a, b})) {
    autograd::record(
        "Atan2Backward0", out, {a, b},
        [xa = SavedTensor(a), xb = SavedTensor(b), sa = a.sizes().vec(),
         sb = b.sizes().vec()](const variable_list& g) {
          Tensor y = xa.unpack(), x = xb.unpack();
          Tensor recip = 1 / (y * y + x * x);
          return variable_list{sum_to(g[0] * x * recip, sa), sum_to(g[0] * -y * recip, sb)};
        });
  }
  return out;
}

Tensor hypot(const Tensor& a, const Tensor& b) {
  ScalarType dt = result_type(a, b);
  EMBER_CHECK(is_floating_point(dt), TypeError, "\"hypot\" not implemented for '", to_string(dt),
              "' (got ", to_string(a.dtype()), " and ", to_string(b.dtype()),
              " operands; hypot takes floating point tensors)");
  Tensor out = binary_kernel_call(BinaryOp::Hypot, a, b, dt);
  if (autograd::needs_grad({a, b})) {
    autograd::record("HypotBackward0", out, {a, b},
                     [xa = SavedTensor(a), xb = SavedTensor(b), y = SavedTensor(out, true),
                      sa = a.sizes().vec(), sb = b.sizes().vec()](const variable_list& g) {
                       Tensor g_over_y = g[0] / y.unpack();
                       return variable_list{sum_to(g_over_y * xa.unpack(), sa),
                                            sum_to(g_over_y * xb.unpack(), sb)};
                     });
  }
  return out;
}

}  // namespace ember
