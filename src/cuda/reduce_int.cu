// CUDA reduction kernels for the integer dtypes and bool (see reduce_kernels.cuh).
#include "cuda/reduce_kernels.cuh"

EMBER_CUDA_REDUCE_FOR(uint8_t)
EMBER_CUDA_REDUCE_FOR(int8_t)
EMBER_CUDA_REDUCE_FOR(int16_t)
EMBER_CUDA_REDUCE_FOR(int32_t)
EMBER_CUDA_REDUCE_FOR(int64_t)
EMBER_CUDA_REDUCE_FOR(bool)
