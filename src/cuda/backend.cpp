// Registers the CUDA backend and its device allocators.
#include "cuda/cuda_backend.h"

#include "core/tensor_factory.h"
#include "cuda/cuda_internal.h"
#include "cuda/device_allocator.h"

namespace ember {
namespace cuda {

Allocator* CudaBackend::allocator(Device device) {
  return device_allocator(device.has_index() ? device.index() : -1);
}

void check_operands(const char* op, std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = *tensors.begin();
  for (const Tensor* t : tensors) {
    if (t->defined() && t->device() != first->device()) check_same_device(*first, *t, op);
  }
}

}  // namespace cuda

Backend& cuda_backend() {
  if (!cuda::is_available()) {
    throw DeviceError("Cannot use a CUDA device: CUDA is not available: " +
                      cuda::unavailable_reason());
  }
  static cuda::CudaBackend backend;
  return backend;
}

}  // namespace ember
