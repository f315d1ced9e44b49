// Unary elementwise family on the CPU: one strided loop, instantiated per op and dtype.
#include "core/dispatch.h"
#include "core/functors.h"
#include "cpu/cpu_backend.h"
#include "cpu/loop.h"

namespace ember::cpu {
namespace {

template <typename Op, typename in_t>
void unary_kernel(const Tensor& out, const Tensor& in, OpParams p) {
  using T = acc_t<in_t>;
  using r_t = decltype(Op()(T(), p));
  // Ops returning bool write bool; the others write the input dtype.
  using out_t = std::conditional_t<std::is_same_v<r_t, bool>, bool, in_t>;
  Op op;
  for_each<2>({&out, &in}, [&](char** ptr, const int64_t* s, int64_t n) {
    auto* o = reinterpret_cast<out_t*>(ptr[0]);
    auto* x = reinterpret_cast<const in_t*>(ptr[1]);
    if (s[0] == sizeof(out_t) && s[1] == sizeof(in_t)) {
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<out_t>(op(static_cast<T>(x[i]), p));
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<out_t*>(ptr[0] + i * s[0]) = static_cast<out_t>(
            op(static_cast<T>(*reinterpret_cast<const in_t*>(ptr[1] + i * s[1])), p));
      }
    }
  });
}

// Picks the functor for `op` (the switch lives outside the dtype-dispatch macro).
template <typename scalar_t>
void unary_for_dtype(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p) {
  switch (op) {
#define EMBER_UNARY_CASE(name, functor)          \
  case UnaryOp::name:                            \
    unary_kernel<functor, scalar_t>(out, in, p); \
    break;
    EMBER_UNARY_OPS(EMBER_UNARY_CASE)
#undef EMBER_UNARY_CASE
    default:
      throw NotImplementedError("unknown unary op");
  }
}

}  // namespace

void CpuBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p) {
  EMBER_DISPATCH_ALL(in.dtype(), "unary", [&] { unary_for_dtype<scalar_t>(op, out, in, p); });
}

}  // namespace ember::cpu
