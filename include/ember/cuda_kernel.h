#pragma once
// ember::cuda::RawKernel: a CUDA C++ kernel compiled at run time with NVRTC, like CuPy's
// RawKernel. Compiled for the current device's architecture, cached in memory and on disk (keyed
// by source, options, architecture and NVRTC version), launched on the current stream with
// tensors and scalars as arguments:
//
//   ember::cuda::RawKernel add(R"(
//     extern "C" __global__ void add(const float* a, const float* b, float* y, int n) {
//       int i = blockIdx.x * blockDim.x + threadIdx.x;
//       if (i < n) y[i] = a[i] + b[i];
//     })", "add");
//   add({(n + 255) / 256}, {256}, {a, b, y, int32_t(n)});
//
// The name may also be a C++ name expression (e.g. "scale<float>"). A compile error throws
// ember::Error with NVRTC's log (line numbers included). A tensor argument must be a contiguous
// CUDA tensor on the current device (RawKernelOptions::allow_non_contiguous lifts the second
// rule for kernels that take strides themselves).
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ember/macros.h"
#include "ember/tensor.h"

namespace ember::cuda {

struct KernelDim {
  unsigned x = 1, y = 1, z = 1;
  KernelDim(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

// One kernel argument: a tensor (passed as its data pointer) or a scalar of the C type the
// kernel declares.
using KernelArg = std::variant<Tensor, int32_t, int64_t, uint32_t, uint64_t, float, double, bool>;

struct RawKernelOptions {
  std::vector<std::string> compile_options;  // e.g. "-std=c++17", "--use_fast_math", "-DN=4"
  bool allow_non_contiguous = false;
};

class EMBER_API RawKernel {
 public:
  RawKernel(std::string source, std::string name, RawKernelOptions options = {});
  ~RawKernel();
  RawKernel(RawKernel&&) noexcept;
  RawKernel& operator=(RawKernel&&) noexcept;

  // Launches on the current device's current stream.
  void operator()(KernelDim grid, KernelDim block, const std::vector<KernelArg>& args,
                  size_t shared_mem = 0) const;
  // The PTX for compute capability `arch` (e.g. 90 for sm_90); needs NVRTC, not a GPU.
  std::string ptx(int arch) const;
  const std::string& name() const;

  // Where compiled kernels are kept on disk: EMBER_KERNEL_CACHE_DIR, else
  // $XDG_CACHE_HOME/ember/kernels, else ~/.cache/ember/kernels.
  static std::string cache_dir();
  // Compilations done by NVRTC in this process (cache misses), for tests.
  static int64_t compilations();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ember::cuda
