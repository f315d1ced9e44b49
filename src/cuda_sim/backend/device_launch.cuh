#pragma once
// The simulator's half of launch_kernel (src/cuda/launch.cuh): the kernel is queued on its
// stream with its name (for reports) and every pointer argument, which the simulator checks
// against the launch's device. nvcc's half is src/cuda_nvcc/device_launch.cuh; CMake picks one.
#include <cxxabi.h>

#include <cstdlib>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "cuda_sim.h"

namespace ember::cuda::detail {

// Names T (e.g. an elementwise functor) in the simulator's reports.
template <typename T>
void name_type(std::string& out) {
  int status = 0;
  char* d = abi::__cxa_demangle(typeid(T).name(), nullptr, nullptr, &status);
  out = status == 0 && d ? d : typeid(T).name();
  std::free(d);
}

template <typename T>
void collect_pointers(const T& arg, std::vector<const void*>& out) {
  if constexpr (std::is_pointer_v<T>) {
    out.push_back(static_cast<const void*>(arg));
  } else if constexpr (requires { arg.visit_pointers([](const void*) {}); }) {
    arg.visit_pointers([&](const void* p) { out.push_back(p); });
  }
}

template <typename... Params, typename Config, typename... Args>
void enqueue_kernel(void (*fn)(Params...), const char* name, const std::string& about,
                    const Config& c, Args&&... args) {
  // Arguments are copied once, as CUDA copies them into the launch.
  std::tuple<std::decay_t<Params>...> params(std::forward<Args>(args)...);
  ::cuda_sim::KernelLaunch k;
  k.name = about.empty() ? std::string(name) : std::string(name) + " [" + about + "]";
  k.func = reinterpret_cast<const void*>(fn);
  k.grid = c.grid;
  k.block = c.block;
  k.shared_bytes = c.shared_bytes;
  k.stream = c.stream;
  std::apply([&](const auto&... p) { (collect_pointers(p, k.pointers), ...); }, params);
  k.body = [fn, params] { std::apply(fn, params); };
  (void)::cuda_sim::launch(std::move(k));
}

}  // namespace ember::cuda::detail

// Dynamic shared memory inside a kernel: EMBER_DYNAMIC_SHARED(float, buf); buf[threadIdx.x] = 0;
#define EMBER_DYNAMIC_SHARED(type, name) \
  type* name = static_cast<type*>(::cuda_sim::dynamic_shared_memory())
