#pragma once
// The caching allocator of one CUDA device (src/cuda/caching_allocator.cpp).
#include "ember/allocator.h"

namespace ember::cuda {
Allocator* device_allocator(int device);
// A block of `stream`'s (a cudaStream_t) pool on `device`, as a tensor allocated while `stream`
// is current would get: same statistics, same out-of-memory path (free the cache, retry, throw).
DataPtr allocate_on_stream(int device, size_t nbytes, void* stream);
}  // namespace ember::cuda
