// CUDA unary kernels for float64 (see unary_kernels.cuh).
#include "cuda/unary_kernels.cuh"

EMBER_CUDA_UNARY_FOR(double)
