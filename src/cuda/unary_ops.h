// The per-dtype entry of the CUDA unary kernels (unary_kernels.cuh), defined in one
// unary_<group>.cu file per dtype group and called by CudaBackend::unary.
#pragma once
#include "core/backend.h"

namespace ember::cuda::detail {

template <typename scalar_t>
void unary_typed(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p);

}  // namespace ember::cuda::detail
