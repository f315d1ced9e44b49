// Binary elementwise family on the CPU, with contiguous and scalar-operand fast paths, and the
// vector kernels of cpu/vec_math.h for the ops that have one.
#include <algorithm>

#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "cpu/vec_math.h"
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

// The vector kernel (cpu/vec_math.h) of `op` in compute type T (float or double), or nullptr.
template <typename T>
VecBinaryFn<T> vec_binary_fn(BinaryOp op) {
  const VecMathKernels* k = vec_math();
  if (!k) return nullptr;
  switch (op) {
    case BinaryOp::GeluBackward:
      return k->binary<T>(VecBinary::kGeluBackward);
    case BinaryOp::GeluTanhBackward:
      return k->binary<T>(VecBinary::kGeluTanhBackward);
    default:
      return nullptr;
  }
}

// Runs a vector kernel as unary.cpp does: contiguous float/double runs in place of the data; other
// layouts and 16-bit dtypes through float/double buffers, rounded once on the way out.
template <typename in_t>
void binary_vec_kernel(VecBinaryFn<acc_t<in_t>> f, const Tensor& out, const Tensor& a,
                       const Tensor& b) {
  using T = acc_t<in_t>;
  for_each<3>({&out, &a, &b}, [&](char** ptr, const int64_t* s, int64_t n) {
    if constexpr (std::is_same_v<in_t, T>) {
      if (s[0] == sizeof(T) && s[1] == sizeof(T) && s[2] == sizeof(T)) {
        f(reinterpret_cast<T*>(ptr[0]), reinterpret_cast<const T*>(ptr[1]),
          reinterpret_cast<const T*>(ptr[2]), n);
        return;
      }
    }
    constexpr int64_t kChunk = 256;
    T x[kChunk], y[kChunk];
    for (int64_t i = 0; i < n; i += kChunk) {
      const int64_t m = std::min(kChunk, n - i);
      for (int64_t j = 0; j < m; ++j) {
        x[j] = static_cast<T>(*reinterpret_cast<const in_t*>(ptr[1] + (i + j) * s[1]));
        y[j] = static_cast<T>(*reinterpret_cast<const in_t*>(ptr[2] + (i + j) * s[2]));
      }
      f(x, x, y, m);
      for (int64_t j = 0; j < m; ++j) {
        *reinterpret_cast<in_t*>(ptr[0] + (i + j) * s[0]) = static_cast<in_t>(x[j]);
      }
    }
  });
}

}  // namespace

void CpuBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                        OpParams p) {
  EMBER_DISPATCH_ALL(a.dtype(), "binary", [&] {
    if constexpr (std::is_floating_point_v<acc_t<scalar_t>>) {
      if (auto f = vec_binary_fn<acc_t<scalar_t>>(op)) {
        binary_vec_kernel<scalar_t>(f, out, a, b);
        return;
      }
    }
    visit_binary_op<scalar_t>(op, a.dtype(), [&](auto f) {
      binary_kernel<typename decltype(f)::type, scalar_t>(out, a, b, p);
    });
  });
}

}  // namespace ember::cpu
