#pragma once
// The CUDA backend: one file per op family, mirroring src/cpu (unary.cu, binary.cu, copy.cpp +
// cast.cu, reduce.cu, random.cu, index.cu, sort.cu, scan.cu, blas.cpp). Every kernel and copy is
// queued on the current stream of the output's device; nothing waits for the GPU unless the copy is
// blocking. The members are the families of EMBER_BACKEND_FAMILIES (core/backend.h).
#include "core/backend.h"

namespace ember::cuda {

class CudaBackend final : public Backend {
 public:
  Allocator* allocator(Device device) override;
  // Yes where cuDNN is built in and enabled (src/cuda_cudnn); no without it (src/cuda_cudnn_off),
  // where the front end composes im2col and cuBLAS.
  bool has_convolution(const Tensor& in, const Window& g, int64_t groups) override;
  EMBER_BACKEND_FAMILIES(EMBER_BACKEND_OVERRIDE)
};

// Same-device elementwise cast copy (any dtypes, any strides, src broadcast to dst); cast.cu.
void cast_copy(const Tensor& dst, const Tensor& src);
// All operands must be CUDA tensors on out's device (a 0-dim CPU tensor is not accepted here:
// front ends turn those into scalars). Throws PyTorch's device-mismatch message.
void check_operands(const char* op, std::initializer_list<const Tensor*> tensors);

}  // namespace ember::cuda
