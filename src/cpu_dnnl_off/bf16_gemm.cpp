// Built without oneDNN: every bfloat16 GEMM is widened to float32 by the caller.
#include "cpu/bf16_gemm.h"

namespace ember::cpu {

bool bf16_gemm(const Tensor&, const Tensor&, const Tensor&, double, double) {
  return false;
}

const char* bf16_gemm_kernel() {
  return "";
}

}  // namespace ember::cpu
