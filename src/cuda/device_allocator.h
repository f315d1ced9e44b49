#pragma once
// The caching allocator of one CUDA device (src/cuda/caching_allocator.cpp).
#include "ember/allocator.h"

namespace ember::cuda {
Allocator* device_allocator(int device);
}  // namespace ember::cuda
