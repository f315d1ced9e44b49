#pragma once
// nvcc's half of launch_kernel (src/cuda/launch.cuh): the kernel goes to the GPU through <<<>>>.
// The simulator's half is src/cuda_sim/backend/device_launch.cuh; CMake picks one.
#include <string>
#include <utility>

namespace ember::cuda::detail {

// Kernels are named only in the simulator's reports: nothing to spend on a GPU launch.
template <typename T>
void name_type(std::string&) {}

template <typename... Params, typename Config, typename... Args>
void enqueue_kernel(void (*fn)(Params...), const char*, const std::string&, const Config& c,
                    Args&&... args) {
  // clang-format off
  fn<<<c.grid, c.block, c.shared_bytes, c.stream>>>(std::forward<Args>(args)...);
  // clang-format on
}

}  // namespace ember::cuda::detail

// Dynamic shared memory inside a kernel: EMBER_DYNAMIC_SHARED(float, buf); buf[threadIdx.x] = 0;
#define EMBER_DYNAMIC_SHARED(type, name) extern __shared__ type name[]
