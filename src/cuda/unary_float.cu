// CUDA unary kernels for float32 (see unary_kernels.cuh).
#include "cuda/unary_kernels.cuh"

EMBER_CUDA_UNARY_FOR(float)
