#pragma once
// The size of the cuBLAS workspace Ember gives each (device, stream), as PyTorch sizes it:
// CUBLAS_WORKSPACE_CONFIG when set, else PyTorch's default for the device's architecture.
#include <cstddef>

#include "ember/macros.h"

namespace ember::cuda_policy {

// PyTorch 2.x's default (aten/src/ATen/cuda/CublasHandlePool.cpp): 32 MiB on compute capability
// 9.0 (Hopper, the size cuBLAS recommends there), else ":4096:2:16:8" = 8 MiB + 128 KiB.
EMBER_API size_t default_cublas_workspace_size(int major, int minor);

// CUBLAS_WORKSPACE_CONFIG as PyTorch reads it: one or more ":SIZE:COUNT" groups, SIZE in KiB,
// the workspace being the sum of SIZE * 1024 * COUNT (":4096:8" = 32 MiB, ":16:8" = 128 KiB).
// Null or empty: `default_bytes`. Anything else (PyTorch warns and uses its default) throws
// ValueError naming the variable and the value.
EMBER_API size_t parse_cublas_workspace_config(const char* value, size_t default_bytes);

}  // namespace ember::cuda_policy
