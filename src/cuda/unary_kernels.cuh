// The unary elementwise kernels, instantiated per dtype group in unary_<group>.cu so that no
// single nvcc compile dominates the build. Included only by those files; unary.cu dispatches to
// them through unary_ops.h.
#pragma once
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "cuda/unary_ops.h"
#include "kernel_math/functors.h"
#include "kernel_math/op_switch.h"

namespace ember::cuda::detail {

template <typename Op, typename in_t>
struct UnaryFn {
  using T = acc_t<in_t>;
  using r_t = decltype(Op()(T(), OpParams{}));
  using out_t = std::conditional_t<std::is_same_v<r_t, bool>, bool, in_t>;
  using operand_types = OperandTypes<out_t, in_t>;
  OpParams p;
  __device__ out_t value(in_t x) const { return static_cast<out_t>(Op()(static_cast<T>(x), p)); }
  __device__ void operator()(char** ptr, int64_t) const {
    *reinterpret_cast<out_t*>(ptr[0]) = value(*reinterpret_cast<const in_t*>(ptr[1]));
  }
};

// Launches op's functor over `in` (kernel_math/op_switch.h rejects a dtype the functor is not
// compiled for, which its front end never passes).
template <typename scalar_t>
void unary_typed(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p) {
  visit_unary_op<scalar_t>(op, in.dtype(), [&](auto f) {
    launch_elementwise<2>({&out, &in}, UnaryFn<typename decltype(f)::type, scalar_t>{p});
  });
}

}  // namespace ember::cuda::detail

// Instantiates unary_typed for one dtype (in its unary_<group>.cu).
#define EMBER_CUDA_UNARY_FOR(scalar_t)                        \
  template void ::ember::cuda::detail::unary_typed<scalar_t>( \
      ::ember::UnaryOp, const ::ember::Tensor&, const ::ember::Tensor&, ::ember::OpParams);
