// Binary elementwise family on CUDA: the functors of src/kernel_math/functors.h in the strided
// loop. The kernels are compiled per dtype group (binary_kernels.cuh, binary_<group>.cu).
#include "cuda/binary_ops.h"
#include "cuda/cuda_backend.h"
#include "kernel_math/dispatch.h"

namespace ember::cuda {

void CudaBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                         OpParams p) {
  const bool a_host = a.is_cpu() && a.dim() == 0, b_host = b.is_cpu() && b.dim() == 0;
  EMBER_CHECK(!(a_host && b_host), ValueError, "binary: both operands are host scalars");
  check_operands("binary", {&out, a_host ? &out : &a, b_host ? &out : &b});
  EMBER_DISPATCH_ALL(a.dtype(), "binary",
                     [&] { detail::binary_typed<scalar_t>(op, out, a, b, p); });
}

}  // namespace ember::cuda
