// CUDA reduction kernels for float64 (see reduce_kernels.cuh).
#include "cuda/reduce_kernels.cuh"

EMBER_CUDA_REDUCE_FOR(double)
