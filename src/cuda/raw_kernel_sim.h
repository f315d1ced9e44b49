#pragma once
// RawKernel on simulated devices (EMBER_CUDA=SIM): there is no PTX to run, so the kernel's CUDA
// C++ source is compiled by the host compiler against the simulator's device header
// (cuda_sim_device.h: threadIdx, __syncthreads, shuffles, atomics) into a cached shared object,
// with a generated entry point that unpacks the argument array as cudaLaunchKernel's kernel would
// receive it. Launches then run on the simulator's kernel engine like Ember's own kernels.
#if defined(EMBER_CUDA_SIM)
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_runtime_api.h"
#include "ember/cuda_kernel.h"

namespace ember::cuda::sim_kernel {

struct HostKernel {
  void (*invoke)(void* const* args) = nullptr;  // calls the kernel with *args[i] as parameter i
  std::vector<size_t> param_sizes;              // sizeof each parameter, to check the arguments
};

// Compiles (or takes from the on-disk cache) `name` from `source`; *compiled says whether the
// compiler ran. Compile errors throw ember::Error with the compiler's log, lines counted in
// `source`.
HostKernel compile(const std::string& source, const std::string& name,
                   const std::vector<std::string>& options, bool* compiled);

// Queues one launch on `stream`. `values` holds argument i in values[i] (as the C type of the
// KernelArg); `pointers` are the tensor arguments' data, checked by the simulator.
void launch(const HostKernel& kernel, const std::string& name, KernelDim grid, KernelDim block,
            size_t shared_mem, cudaStream_t stream, std::vector<uint64_t> values,
            std::vector<const void*> pointers);

}  // namespace ember::cuda::sim_kernel
#endif
