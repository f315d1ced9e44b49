// Unary elementwise family on CUDA: the functors of src/kernel_math/functors.h in the strided loop.
// The kernels are compiled per dtype group (unary_kernels.cuh, unary_<group>.cu).
#include "cuda/cuda_backend.h"
#include "cuda/unary_ops.h"
#include "kernel_math/dispatch.h"

namespace ember::cuda {

void CudaBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p) {
  check_operands("unary", {&out, &in});
  EMBER_DISPATCH_ALL(in.dtype(), "unary", [&] { detail::unary_typed<scalar_t>(op, out, in, p); });
}

}  // namespace ember::cuda
