// The per-dtype entry of the CUDA binary kernels (binary_kernels.cuh), defined in one
// binary_<group>.cu file per dtype group and called by CudaBackend::binary.
#pragma once
#include "core/backend.h"

namespace ember::cuda::detail {

template <typename scalar_t>
void binary_typed(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams p);

}  // namespace ember::cuda::detail
