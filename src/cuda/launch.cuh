#pragma once
// The one way src/cuda launches a kernel, so that nvcc and the simulator (-DEMBER_CUDA=SIM)
// compile the same source:
//   launch_kernel(EMBER_KERNEL(my_kernel<T>), {grid, block, shared_bytes, stream}, args...);
// nvcc turns it into my_kernel<T><<<grid, block, shared_bytes, stream>>>(args...); the simulator
// queues the kernel on the stream with its name (for reports) and checks every pointer
// argument (and the pointers inside arguments that list them, e.g. StridedLayout) against the
// launch's device. Errors are left for cudaGetLastError, as after <<<>>>.
#include <string>
#include <utility>

#include "core/device_audit.h"
#include "cuda/cuda_internal.h"
// The build's half of the launch: enqueue_kernel, name_type and EMBER_DYNAMIC_SHARED, from
// src/cuda_nvcc or src/cuda_sim/backend (CMake puts one of them on the include path).
#include "device_launch.cuh"

namespace ember::cuda {

template <typename... Params>
struct KernelRef {
  void (*fn)(Params...);
  const char* name;
  std::string detail;  // the simulator's reports name it too (e.g. an elementwise functor)
  // Names the type T in the simulator's reports; nothing on a GPU build.
  template <typename T>
  KernelRef&& about() && {
    ::ember::cuda::detail::name_type<T>(detail);
    return std::move(*this);
  }
};
template <typename... Params>
KernelRef<Params...> make_kernel_ref(void (*fn)(Params...), const char* name) {
  return {fn, name, {}};
}
#define EMBER_KERNEL(...) ::ember::cuda::make_kernel_ref(&__VA_ARGS__, #__VA_ARGS__)

struct LaunchConfig {
  dim3 grid;
  dim3 block;
  size_t shared_bytes = 0;
  cudaStream_t stream = nullptr;
};

template <typename... Params, typename... Args>
void launch_kernel(KernelRef<Params...> kernel, const LaunchConfig& c, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "kernel argument count");
  audit::record_kernel_launch();
  detail::enqueue_kernel(kernel.fn, kernel.name, kernel.detail, c, std::forward<Args>(args)...);
}

}  // namespace ember::cuda
