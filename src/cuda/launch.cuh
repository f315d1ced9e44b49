#pragma once
// The one way src/cuda launches a kernel, so that nvcc and the simulator (-DEMBER_CUDA=SIM)
// compile the same source:
//   launch_kernel(EMBER_KERNEL(my_kernel<T>), {grid, block, shared_bytes, stream}, args...);
// nvcc turns it into my_kernel<T><<<grid, block, shared_bytes, stream>>>(args...); the simulator
// queues the kernel on the stream with its name (for reports) and checks every pointer
// argument (and the pointers inside arguments that list them, e.g. StridedLayout) against the
// launch's device. Errors are left for cudaGetLastError, as after <<<>>>.
#include <cstdlib>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/device_audit.h"
#include "cuda/cuda_internal.h"
#if defined(EMBER_CUDA_SIM)
#include <cxxabi.h>

#include <typeinfo>

#include "cuda_sim.h"
#endif

namespace ember::cuda {

template <typename... Params>
struct KernelRef {
  void (*fn)(Params...);
  const char* name;
  std::string detail;  // the simulator's reports name it too (e.g. an elementwise functor)
  // Names the type T in the simulator's reports; nothing on a GPU build.
  template <typename T>
  KernelRef&& about() && {
#if defined(EMBER_CUDA_SIM)
    int status = 0;
    char* d = abi::__cxa_demangle(typeid(T).name(), nullptr, nullptr, &status);
    detail = status == 0 && d ? d : typeid(T).name();
    std::free(d);
#endif
    return std::move(*this);
  }
};
template <typename... Params>
KernelRef<Params...> make_kernel_ref(void (*fn)(Params...), const char* name) {
  return {fn, name, {}};
}
#define EMBER_KERNEL(...) ::ember::cuda::make_kernel_ref(&__VA_ARGS__, #__VA_ARGS__)

// Dynamic shared memory inside a kernel: EMBER_DYNAMIC_SHARED(float, buf); buf[threadIdx.x] = 0;
#if defined(EMBER_CUDA_SIM)
#define EMBER_DYNAMIC_SHARED(type, name) \
  type* name = static_cast<type*>(::cuda_sim::dynamic_shared_memory())
#else
#define EMBER_DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#endif

struct LaunchConfig {
  dim3 grid;
  dim3 block;
  size_t shared_bytes = 0;
  cudaStream_t stream = nullptr;
};

#if defined(EMBER_CUDA_SIM)
namespace detail {
template <typename T>
void collect_pointers(const T& arg, std::vector<const void*>& out) {
  if constexpr (std::is_pointer_v<T>) {
    out.push_back(static_cast<const void*>(arg));
  } else if constexpr (requires { arg.visit_pointers([](const void*) {}); }) {
    arg.visit_pointers([&](const void* p) { out.push_back(p); });
  }
}
}  // namespace detail
#endif

template <typename... Params, typename... Args>
void launch_kernel(KernelRef<Params...> kernel, const LaunchConfig& c, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "kernel argument count");
  audit::record_kernel_launch();
#if defined(EMBER_CUDA_SIM)
  // Arguments are copied once, as CUDA copies them into the launch.
  std::tuple<std::decay_t<Params>...> params(std::forward<Args>(args)...);
  cuda_sim::KernelLaunch k;
  k.name = kernel.detail.empty() ? std::string(kernel.name)
                                 : std::string(kernel.name) + " [" + kernel.detail + "]";
  k.func = reinterpret_cast<const void*>(kernel.fn);
  k.grid = c.grid;
  k.block = c.block;
  k.shared_bytes = c.shared_bytes;
  k.stream = c.stream;
  std::apply([&](const auto&... p) { (detail::collect_pointers(p, k.pointers), ...); }, params);
  k.body = [fn = kernel.fn, params] { std::apply(fn, params); };
  (void)cuda_sim::launch(std::move(k));
#else
  void (*fn)(Params...) = kernel.fn;
  // clang-format off
  fn<<<c.grid, c.block, c.shared_bytes, c.stream>>>(std::forward<Args>(args)...);
  // clang-format on
#endif
}

}  // namespace ember::cuda
