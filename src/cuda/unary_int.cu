// CUDA unary kernels for the integer dtypes and bool (see unary_kernels.cuh).
#include "cuda/unary_kernels.cuh"

EMBER_CUDA_UNARY_FOR(uint8_t)
EMBER_CUDA_UNARY_FOR(int8_t)
EMBER_CUDA_UNARY_FOR(int16_t)
EMBER_CUDA_UNARY_FOR(int32_t)
EMBER_CUDA_UNARY_FOR(int64_t)
EMBER_CUDA_UNARY_FOR(bool)
