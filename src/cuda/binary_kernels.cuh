// The binary elementwise kernels, instantiated per dtype group in binary_<group>.cu so that no
// single nvcc compile dominates the build (one file held every dtype: 290 CPU-seconds for sm_90).
// Included only by those files; binary.cu dispatches to them through binary_ops.h.
#pragma once
#include "cuda/binary_ops.h"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "kernel_assert.cuh"  // src/cuda_nvcc or src/cuda_sim/backend, by CMake
#include "kernel_math/functors.h"
#include "kernel_math/op_switch.h"

namespace ember::cuda::detail {

// An integer divisor of zero stops the kernel with a device-side assert (sticky, as PyTorch's
// CUDA_KERNEL_ASSERT; no host sync). Host-side scalar divisors are checked by the front end.
template <typename Op, typename in_t>
__device__ __forceinline__ void check_divisor(in_t divisor) {
  if constexpr (kDividesIntegers<Op> && std::is_integral_v<in_t>) {
    EMBER_KERNEL_ASSERT(divisor != in_t(0), "ZeroDivisionError: integer division by zero");
  }
}

template <typename Op, typename in_t>
struct BinaryFn {
  using T = acc_t<in_t>;
  using r_t = decltype(Op()(T(), T(), OpParams{}));
  using out_t = std::conditional_t<std::is_same_v<r_t, bool>, bool, in_t>;
  using operand_types = OperandTypes<out_t, in_t, in_t>;
  OpParams p;
  __device__ out_t value(in_t a, in_t b) const {
    check_divisor<Op>(b);
    return static_cast<out_t>(Op()(static_cast<T>(a), static_cast<T>(b), p));
  }
  __device__ void operator()(char** ptr, int64_t) const {
    *reinterpret_cast<out_t*>(ptr[0]) =
        value(*reinterpret_cast<const in_t*>(ptr[1]), *reinterpret_cast<const in_t*>(ptr[2]));
  }
};

// One operand is a host scalar (a 0-dim CPU tensor, as PyTorch allows): passed by value, so
// no copy to the device and no host sync.
template <typename Op, typename in_t, bool kScalarIsRight>
struct BinaryScalarFn {
  using T = acc_t<in_t>;
  using r_t = decltype(Op()(T(), T(), OpParams{}));
  using out_t = std::conditional_t<std::is_same_v<r_t, bool>, bool, in_t>;
  using operand_types = OperandTypes<out_t, in_t>;
  OpParams p;
  in_t scalar;
  __device__ out_t value(in_t in) const {
    const T x = static_cast<T>(in);
    const T s = static_cast<T>(scalar);
    check_divisor<Op>(kScalarIsRight ? scalar : in);
    return static_cast<out_t>(kScalarIsRight ? Op()(x, s, p) : Op()(s, x, p));
  }
  __device__ void operator()(char** ptr, int64_t) const {
    *reinterpret_cast<out_t*>(ptr[0]) = value(*reinterpret_cast<const in_t*>(ptr[1]));
  }
};

template <typename Op, typename scalar_t>
void launch_binary(const Tensor& out, const Tensor& a, const Tensor& b, OpParams p) {
  const bool a_host = a.is_cpu() && a.dim() == 0, b_host = b.is_cpu() && b.dim() == 0;
  if (b_host) {
    const scalar_t v = *static_cast<const scalar_t*>(b.data_ptr());
    launch_elementwise<2>({&out, &a}, BinaryScalarFn<Op, scalar_t, true>{p, v});
  } else if (a_host) {
    const scalar_t v = *static_cast<const scalar_t*>(a.data_ptr());
    launch_elementwise<2>({&out, &b}, BinaryScalarFn<Op, scalar_t, false>{p, v});
  } else {
    launch_elementwise<3>({&out, &a, &b}, BinaryFn<Op, scalar_t>{p});
  }
}

// Launches op's functor (kernel_math/op_switch.h rejects a dtype the functor is not compiled for).
template <typename scalar_t>
void binary_typed(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams p) {
  visit_binary_op<scalar_t>(op, a.dtype(), [&](auto f) {
    launch_binary<typename decltype(f)::type, scalar_t>(out, a, b, p);
  });
}

}  // namespace ember::cuda::detail

// Instantiates binary_typed for one dtype (in its binary_<group>.cu).
#define EMBER_CUDA_BINARY_FOR(scalar_t)                                                          \
  template void ::ember::cuda::detail::binary_typed<scalar_t>(                                   \
      ::ember::BinaryOp, const ::ember::Tensor&, const ::ember::Tensor&, const ::ember::Tensor&, \
      ::ember::OpParams);
