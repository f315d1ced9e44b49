// Unary elementwise family on the CPU: one strided loop, instantiated per op and dtype.
#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "cpu/vec_math.h"
#include "kernel_math/dispatch.h"
#include "kernel_math/functors.h"
#include "kernel_math/op_switch.h"

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

// The vector kernel (cpu/vec_math.h) of `op` in compute type T (float or double), or nullptr: the
// op has none, or the CPU runs the scalar path.
template <typename T>
VecUnaryFn<T> vec_unary_fn(UnaryOp op) {
  const VecMathKernels* k = vec_math();
  if (!k) return nullptr;
  switch (op) {
    case UnaryOp::Exp:
      return k->unary<T>(VecUnary::kExp);
    case UnaryOp::Log:
      return k->unary<T>(VecUnary::kLog);
    case UnaryOp::Log1p:
      return k->unary<T>(VecUnary::kLog1p);
    case UnaryOp::Tanh:
      return k->unary<T>(VecUnary::kTanh);
    case UnaryOp::Sigmoid:
      return k->unary<T>(VecUnary::kSigmoid);
    case UnaryOp::Gelu:
      return k->unary<T>(VecUnary::kGelu);
    case UnaryOp::GeluTanh:
      return k->unary<T>(VecUnary::kGeluTanh);
    case UnaryOp::Silu:
      return k->unary<T>(VecUnary::kSilu);
    case UnaryOp::Erf:
      return k->unary<T>(VecUnary::kErf);
    default:
      return nullptr;
  }
}

// Runs a vector kernel: contiguous float/double runs in place of the data; 16-bit and strided runs
// through a float/double buffer (rounded once on the way out), so every layout and dtype gets the
// same math.
template <typename in_t>
void unary_vec_kernel(VecUnaryFn<acc_t<in_t>> f, const Tensor& out, const Tensor& in) {
  using T = acc_t<in_t>;
  for_each<2>({&out, &in}, [&](char** ptr, const int64_t* s, int64_t n) {
    if constexpr (std::is_same_v<in_t, T>) {
      if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
        f(reinterpret_cast<T*>(ptr[0]), reinterpret_cast<const T*>(ptr[1]), n);
        return;
      }
    }
    constexpr int64_t kChunk = 256;
    T buf[kChunk];
    for (int64_t i = 0; i < n; i += kChunk) {
      const int64_t m = std::min(kChunk, n - i);
      const char* x = ptr[1] + i * s[1];
      char* o = ptr[0] + i * s[0];
      for (int64_t j = 0; j < m; ++j) {
        buf[j] = static_cast<T>(*reinterpret_cast<const in_t*>(x + j * s[1]));
      }
      f(buf, buf, m);
      for (int64_t j = 0; j < m; ++j)
        *reinterpret_cast<in_t*>(o + j * s[0]) = static_cast<in_t>(buf[j]);
    }
  });
}

// The vector kernel of `op` where there is one, else its functor (kernel_math/op_switch.h).
template <typename scalar_t>
void unary_for_dtype(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p) {
  if constexpr (std::is_floating_point_v<acc_t<scalar_t>>) {
    if (auto f = vec_unary_fn<acc_t<scalar_t>>(op)) {
      unary_vec_kernel<scalar_t>(f, out, in);
      return;
    }
  }
  visit_unary_op<scalar_t>(op, in.dtype(), [&](auto f) {
    unary_kernel<typename decltype(f)::type, scalar_t>(out, in, p);
  });
}

}  // namespace

void CpuBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p) {
  EMBER_DISPATCH_ALL(in.dtype(), "unary", [&] { unary_for_dtype<scalar_t>(op, out, in, p); });
}

}  // namespace ember::cpu
