// CUDA binary kernels for uint8, int8, int16 and bool (see binary_kernels.cuh).
#include "cuda/binary_kernels.cuh"

EMBER_CUDA_BINARY_FOR(uint8_t)
EMBER_CUDA_BINARY_FOR(int8_t)
EMBER_CUDA_BINARY_FOR(int16_t)
EMBER_CUDA_BINARY_FOR(bool)
