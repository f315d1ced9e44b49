#pragma once
// Internal helpers shared by the CUDA backend's files: error checks, device resolution, the
// current stream as a cudaStream_t, and the allocators' hooks.
#include <cuda_runtime_api.h>

#include "ember/cuda.h"
#include "ember/error.h"
#include "ember/tensor.h"

namespace ember::cuda::detail {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);

// -1 -> the current device; otherwise checks the ordinal (DeviceError naming it).
int resolve_device(int device);
// Throws DeviceError "<caller>: CUDA is not available: <why>" when there is no usable device, so
// that a stream or event call made without CUDA names the user's call, not an internal one.
void require_available(const char* caller);
// The calling thread's current stream on `device` (already resolved).
cudaStream_t current_cuda_stream(int device);
inline cudaStream_t stream_of(const Tensor& t) {
  return current_cuda_stream(t.device().index());
}

// Pinned host memory: tells the host allocator an async copy on `stream` of `device` uses `t`'s
// block. Returns false when `t` is not in memory from Ember's pinned allocator.
bool record_pinned_use(const Tensor& t, cudaStream_t stream, int device);

}  // namespace ember::cuda::detail

#define EMBER_CUDA_CHECK(expr)                                                        \
  do {                                                                                \
    cudaError_t ember_err_ = (expr);                                                  \
    if (ember_err_ != cudaSuccess) {                                                  \
      ::ember::cuda::detail::throw_cuda_error(ember_err_, #expr, __FILE__, __LINE__); \
    }                                                                                 \
  } while (0)
