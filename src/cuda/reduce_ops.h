// The per-dtype entry of the CUDA reduction kernels (reduce_kernels.cuh), defined in one
// reduce_<group>.cu file per dtype group and called by CudaBackend::reduce.
#pragma once
#include "core/backend.h"

namespace ember::cuda::detail {

template <typename scalar_t>
void reduce_typed(ReduceOp op, const Tensor& out, const Tensor& in);

}  // namespace ember::cuda::detail
