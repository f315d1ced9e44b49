// The CUDA backend built without cuDNN (none found at build time, or EMBER_CUDNN=OFF): no direct
// convolution, so the front end composes Ember's im2col kernels and cuBLAS, and
// backends::cudnn::is_available() says so.
#include "cuda/cuda_backend.h"
#include "ember/backends.h"

namespace ember {
namespace backends::cudnn {
bool is_available() {
  return false;
}
int64_t version() {
  return -1;
}
}  // namespace backends::cudnn

namespace cuda {

bool CudaBackend::has_convolution(const Tensor&, const Window&, int64_t) {
  return false;
}

void CudaBackend::convolution(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                              const Window&, int64_t) {
  throw Error(
      "convolution: this build of Ember has no cuDNN (has_convolution() is false); conv2d "
      "composes im2col and cuBLAS on CUDA");
}
void CudaBackend::convolution_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                       const Tensor&, const Tensor&, const Window&, int64_t) {
  throw Error(
      "convolution_backward: this build of Ember has no cuDNN (has_convolution() is false)");
}

}  // namespace cuda
}  // namespace ember
