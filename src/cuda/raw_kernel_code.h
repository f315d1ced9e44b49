#pragma once
// The half of RawKernel that depends on the build: how a kernel's source becomes code that runs.
// On a CUDA build NVRTC compiles it to PTX that the CUDA runtime loads
// (src/cuda_nvcc/raw_kernel_code.cpp); on simulated devices the host compiler builds it into a
// shared object whose launches run on the simulator (src/cuda_sim/backend/raw_kernel_code.cpp).
// CMake picks one; src/cuda/raw_kernel.cpp keeps what both share (the argument checks, the
// compilation count, the cache folder).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/cuda_kernel.h"

namespace ember::cuda::detail {

class RawKernelCode {
 public:
  virtual ~RawKernelCode() = default;
  // The PTX for compute capability `arch` (already checked to be one NVRTC knows).
  virtual std::string ptx(int arch) = 0;
  // Launches on `device` (the current one) and its current stream. `args` are checked against
  // the device; values[i] holds argument i as its C type (a tensor's data pointer).
  virtual void launch(int device, KernelDim grid, KernelDim block, size_t shared_mem,
                      const std::vector<KernelArg>& args, std::vector<uint64_t> values) = 0;
};

// Compiles nothing yet: each build compiles on first use.
std::unique_ptr<RawKernelCode> make_raw_kernel_code(std::string source, std::string name,
                                                    RawKernelOptions options);

// Counts a run of the compiler (a cache miss), for RawKernel::compilations().
void count_raw_kernel_compilation();

}  // namespace ember::cuda::detail
