// Reduction family on CUDA: Sum/Prod/Max/Min/Any/All over any set of dims (the kernels and their
// paths: reduce_kernels.cuh, compiled per dtype group in reduce_<group>.cu); arg max/min is
// arg_reduce.cu.
#include "cuda/cuda_backend.h"
#include "cuda/reduce_ops.h"
#include "kernel_math/dispatch.h"

namespace ember::cuda {

void CudaBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& in) {
  check_operands("reduce", {&out, &in});
  EMBER_DISPATCH_ALL(in.dtype(), "reduce", [&] { detail::reduce_typed<scalar_t>(op, out, in); });
}

}  // namespace ember::cuda
