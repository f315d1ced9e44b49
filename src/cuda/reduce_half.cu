// CUDA reduction kernels for float16 and bfloat16 (see reduce_kernels.cuh).
#include "cuda/reduce_kernels.cuh"

EMBER_CUDA_REDUCE_FOR(::ember::Half)
EMBER_CUDA_REDUCE_FOR(::ember::BFloat16)
