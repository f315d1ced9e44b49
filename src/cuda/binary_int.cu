// CUDA binary kernels for int32 and int64 (see binary_kernels.cuh).
#include "cuda/binary_kernels.cuh"

EMBER_CUDA_BINARY_FOR(int32_t)
EMBER_CUDA_BINARY_FOR(int64_t)
