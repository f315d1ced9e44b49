// Binary elementwise family on the CPU, with contiguous and scalar-operand fast paths.
#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "kernel_math/dispatch.h"
#include "kernel_math/functors.h"
#include "kernel_math/op_switch.h"

namespace ember::cpu {
namespace {

template <typename Op, typename in_t>
void binary_kernel(const Tensor& out, const Tensor& a, const Tensor& b, OpParams p) {
  using T = acc_t<in_t>;
  using r_t = decltype(Op()(T(), T(), p));
  using out_t = std::conditional_t<std::is_same_v<r_t, bool>, bool, in_t>;
  Op op;
  for_each<3>({&out, &a, &b}, [&](char** ptr, const int64_t* s, int64_t n) {
    auto* o = reinterpret_cast<out_t*>(ptr[0]);
    auto* x = reinterpret_cast<const in_t*>(ptr[1]);
    auto* y = reinterpret_cast<const in_t*>(ptr[2]);
    constexpr int64_t so = sizeof(out_t), si = sizeof(in_t);
    if (s[0] == so && s[1] == si && s[2] == si) {
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<out_t>(op(T(x[i]), T(y[i]), p));
    } else if (s[0] == so && s[1] == si && s[2] == 0) {
      const T yv = T(*y);
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<out_t>(op(T(x[i]), yv, p));
    } else if (s[0] == so && s[1] == 0 && s[2] == si) {
      const T xv = T(*x);
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<out_t>(op(xv, T(y[i]), p));
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<out_t*>(ptr[0] + i * s[0]) =
            static_cast<out_t>(op(T(*reinterpret_cast<const in_t*>(ptr[1] + i * s[1])),
                                  T(*reinterpret_cast<const in_t*>(ptr[2] + i * s[2])), p));
      }
    }
  });
}

}  // namespace

void CpuBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                        OpParams p) {
  EMBER_DISPATCH_ALL(a.dtype(), "binary", [&] {
    visit_binary_op<scalar_t>(op, a.dtype(), [&](auto f) {
      binary_kernel<typename decltype(f)::type, scalar_t>(out, a, b, p);
    });
  });
}

}  // namespace ember::cpu
