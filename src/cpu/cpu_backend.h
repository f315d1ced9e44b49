#pragma once
// The CPU backend: one file per op family (unary.cpp, binary.cpp, copy.cpp, reduce.cpp, blas.cpp,
// random.cpp, index.cpp, sort.cpp, scan.cpp, window.cpp, convolution.cpp, amp.cpp, ...), each
// defining its members of CpuBackend. The members are the families of EMBER_BACKEND_FAMILIES
// (core/backend.h).
#include "core/backend.h"

namespace ember::cpu {

class CpuBackend final : public Backend {
 public:
  Allocator* allocator(Device) override { return cpu_allocator(); }
  bool has_convolution(const Tensor& in, const Window& g, int64_t groups) override;
  EMBER_BACKEND_FAMILIES(EMBER_BACKEND_OVERRIDE)

 private:
  // gemm's summed form (out has batch 1, a or b more).
  void gemm_summed(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta);
};

}  // namespace ember::cpu
