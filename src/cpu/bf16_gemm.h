#pragma once
// bfloat16 GEMMs on the CPU's bfloat16 instructions, through oneDNN when Ember is built with it
// (src/cpu_dnnl/, the kernels libtorch's CPU autocast uses). Without oneDNN, or where it has no
// fast kernel for the CPU or the layout, bf16_gemm declines (src/cpu_dnnl_off/ always does) and
// the caller widens the operands to float32 for OpenBLAS.
#include "ember/tensor.h"

namespace ember::cpu {

// out[b] = alpha * a[b] @ b[b] + beta * out[b] over 3-D bfloat16 tensors [B, M, K] x [B, K, N]
// (a or b may have batch 1 or a batch stride of 0), accumulated in float32 and rounded once;
// out with batch 1 and more products is the summed form (CpuBackend::gemm). Returns false,
// having written nothing, when it cannot.
EMBER_API bool bf16_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha,
                         double beta);

// Whether bf16_gemm uses oneDNN in this build, and the kernel it picked for a typical shape (for
// tests and benchmarks: "brg:avx512_core_bf16", or empty without oneDNN or a fast kernel).
EMBER_API const char* bf16_gemm_kernel();

}  // namespace ember::cpu
