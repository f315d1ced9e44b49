#pragma once
// What the CUDA backend tells the CUDA simulator beyond CUDA's own API. On a GPU build there is
// no simulator: src/cuda_nvcc/simulator_hooks.cpp ignores these (and is_simulated() is false);
// src/cuda_sim/backend/simulator_hooks.cpp passes them on. CMake picks one.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace ember::cuda::detail {

// The caching allocator handed out [ptr, ptr + nbytes) of one of its segments.
void note_block_allocated(void* ptr, size_t nbytes);
// The block became free again, reusable in `stream` order: the simulator poisons it then and
// reports kernels given a pointer into it.
void note_block_freed(void* ptr, size_t nbytes, cudaStream_t stream);

}  // namespace ember::cuda::detail
