// CUDA binary kernels for float16 and bfloat16 (see binary_kernels.cuh).
#include "cuda/binary_kernels.cuh"

EMBER_CUDA_BINARY_FOR(::ember::Half)
EMBER_CUDA_BINARY_FOR(::ember::BFloat16)
