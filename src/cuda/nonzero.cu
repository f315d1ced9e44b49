// nonzero on CUDA in three kernels: each block counts the true elements of its chunk of the
// mask, one thread turns the counts into offsets and the total, and after the host has read the
// total (the one wait, which PyTorch's nonzero has too: the output's size depends on it) each
// block writes its elements' coordinates from its offset, in row-major order.
#include "core/tensor_factory.h"
#include "cuda/cuda_backend.h"
#include "cuda/launch.cuh"
#include "cuda/loop.cuh"
#include "kernel_math/strided_layout.h"

namespace ember::cuda {
namespace {

// Each thread owns kItems consecutive elements, so a block's outputs come out in order.
constexpr int kItems = 16;
constexpr int64_t kChunk = int64_t(kThreads) * kItems;

struct MaskShape {
  int ndim;
  int64_t sizes[kMaxLoopDims];
};

__device__ __forceinline__ int64_t count_own(const bool* m, int64_t n, int64_t first) {
  int64_t c = 0;
  for (int k = 0; k < kItems; ++k) {
    const int64_t i = first + k;
    if (i < n && m[i]) ++c;
  }
  return c;
}

__device__ __forceinline__ int64_t first_of_thread() {
  return static_cast<int64_t>(blockIdx.x) * kChunk + static_cast<int64_t>(threadIdx.x) * kItems;
}

__global__ void __launch_bounds__(kThreads)
    nonzero_count_kernel(const bool* m, int64_t n, int64_t* counts) {
  __shared__ int64_t sh[kThreads];
  sh[threadIdx.x] = count_own(m, n, first_of_thread());
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) counts[blockIdx.x] = sh[0];
}

// One thread: counts[0..blocks) become exclusive offsets, counts[blocks] the total.
__global__ void nonzero_offsets_kernel(int64_t* counts, int64_t blocks) {
  int64_t sum = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t c = counts[b];
    counts[b] = sum;
    sum += c;
  }
  counts[blocks] = sum;
}

__global__ void __launch_bounds__(kThreads)
    nonzero_write_kernel(const bool* m, int64_t n, const int64_t* offsets, MaskShape s,
                         int64_t* out) {
  __shared__ int64_t sh[kThreads];
  const int64_t first = first_of_thread();
  sh[threadIdx.x] = count_own(m, n, first);
  __syncthreads();
  if (threadIdx.x == 0) {  // exclusive scan of the threads' counts (blockDim.x values)
    int64_t sum = 0;
    for (unsigned t = 0; t < blockDim.x; ++t) {
      const int64_t c = sh[t];
      sh[t] = sum;
      sum += c;
    }
  }
  __syncthreads();
  int64_t row = offsets[blockIdx.x] + sh[threadIdx.x];
  for (int k = 0; k < kItems; ++k) {
    const int64_t i = first + k;
    if (i >= n || !m[i]) continue;
    int64_t rest = i;
    for (int d = s.ndim - 1; d >= 0; --d) {
      out[row * s.ndim + d] = rest % s.sizes[d];
      rest /= s.sizes[d];
    }
    ++row;
  }
}

}  // namespace

Tensor CudaBackend::nonzero(const Tensor& mask) {
  check_operands("nonzero", {&mask});
  const int64_t n = mask.numel(), nd = mask.dim();
  EMBER_CHECK(nd <= kMaxLoopDims, ValueError, "nonzero(): tensors of more than ", kMaxLoopDims,
              " dims are not supported, got ", nd);
  if (n == 0) return make_empty({0, nd}, kLong, mask.device());
  const int device = mask.device().index();
  DeviceGuard guard(device);
  cudaStream_t stream = detail::current_cuda_stream(device);
  const int64_t blocks = (n + kChunk - 1) / kChunk;
  EMBER_CHECK(blocks < (int64_t(1) << 31), ValueError, "nonzero(): ", n,
              " elements are more than one launch covers");
  Tensor counts = make_empty({blocks + 1}, kLong, mask.device());
  const auto* m = mask.data_ptr<bool>();
  auto* c = counts.data_ptr<int64_t>();
  launch_kernel(EMBER_KERNEL(nonzero_count_kernel),
                {static_cast<unsigned>(blocks), kThreads, 0, stream}, m, n, c);
  EMBER_CUDA_CHECK(cudaGetLastError());
  launch_kernel(EMBER_KERNEL(nonzero_offsets_kernel), {1, 1, 0, stream}, c, blocks);
  EMBER_CUDA_CHECK(cudaGetLastError());
  const int64_t total = counts.narrow(0, blocks, 1).item<int64_t>();
  Tensor out = make_empty({total, nd}, kLong, mask.device());
  if (total == 0 || nd == 0) return out;
  MaskShape s{};
  s.ndim = static_cast<int>(nd);
  for (int64_t d = 0; d < nd; ++d) s.sizes[d] = mask.size(d);
  launch_kernel(EMBER_KERNEL(nonzero_write_kernel),
                {static_cast<unsigned>(blocks), kThreads, 0, stream}, m, n,
                static_cast<const int64_t*>(c), s, out.data_ptr<int64_t>());
  EMBER_CUDA_CHECK(cudaGetLastError());
  return out;
}

}  // namespace ember::cuda
