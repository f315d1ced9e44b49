// Binary elementwise family on CUDA: the functors of src/core/functors.h in the strided loop.
#include "core/functors.h"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"

namespace ember::cuda {
namespace {

template <typename Op, typename in_t>
struct BinaryFn {
  using T = acc_t<in_t>;
  using r_t = decltype(Op()(T(), T(), OpParams{}));
  using out_t = std::conditional_t<std::is_same_v<r_t, bool>, bool, in_t>;
  OpParams p;
  __device__ void operator()(char** ptr, int64_t) const {
    *reinterpret_cast<out_t*>(ptr[0]) =
        static_cast<out_t>(Op()(static_cast<T>(*reinterpret_cast<const in_t*>(ptr[1])),
                                static_cast<T>(*reinterpret_cast<const in_t*>(ptr[2])), p));
  }
};

// The switch lives in a function: a #define inside a macro argument is not portable (nvcc).
template <typename scalar_t>
void binary_typed(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams p) {
  switch (op) {
#define EMBER_BINARY_CASE(name, functor)                                   \
  case BinaryOp::name:                                                     \
    launch_elementwise<3>({&out, &a, &b}, BinaryFn<functor, scalar_t>{p}); \
    break;
    EMBER_BINARY_OPS(EMBER_BINARY_CASE)
#undef EMBER_BINARY_CASE
    default:
      throw NotImplementedError("unknown binary op");
  }
}

}  // namespace

void CudaBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                         OpParams p) {
  check_operands("binary", {&out, &a, &b});
  EMBER_DISPATCH_ALL(a.dtype(), "binary", [&] { binary_typed<scalar_t>(op, out, a, b, p); });
}

}  // namespace ember::cuda
