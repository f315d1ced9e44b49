// CUDA unary kernels for float16 and bfloat16 (see unary_kernels.cuh).
#include "cuda/unary_kernels.cuh"

EMBER_CUDA_UNARY_FOR(::ember::Half)
EMBER_CUDA_UNARY_FOR(::ember::BFloat16)
