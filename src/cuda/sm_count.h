#pragma once
// The device's SM count, asked once per device (the reductions size their grids by it).
#include <algorithm>
#include <array>
#include <atomic>

#include "cuda/cuda_internal.h"

namespace ember::cuda::detail {

inline int sm_count(int device) {
  static std::array<std::atomic<int>, 64> cached{};
  if (device < 0 || device >= static_cast<int>(cached.size())) return 1;
  int n = cached[device].load(std::memory_order_relaxed);
  if (n == 0) {
    cudaDeviceProp p{};
    EMBER_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    n = std::max(1, p.multiProcessorCount);
    cached[device].store(n, std::memory_order_relaxed);
  }
  return n;
}

}  // namespace ember::cuda::detail
