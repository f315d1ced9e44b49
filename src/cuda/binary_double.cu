// CUDA binary kernels for float64 (see binary_kernels.cuh).
#include "cuda/binary_kernels.cuh"

EMBER_CUDA_BINARY_FOR(double)
