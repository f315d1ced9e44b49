// Sort family on CUDA: each row of a contiguous [rows, D] tensor sorted by
// kernel_math/sort_order.h's order (stable, NaN greatest). Rows up to kSharedSortLength elements
// are sorted by one block each in shared memory with a bitonic network (the row padded to a power
// of two; padding sorts last). Longer rows are merge sorted in global memory: ceil(log2 D) passes,
// each placing every element of a run at its own position plus its rank in the neighbouring run (a
// binary search), so a pass is one thread per element and needs no synchronisation inside the
// kernel.
#include "core/tensor_factory.h"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "kernel_math/sort_order.h"

namespace ember::cuda {
namespace {

constexpr int64_t kSharedSortLength = 1024;

// Whether the element at shared position a comes before the one at b; padding (index >= D)
// comes after every real element.
template <typename T>
__device__ __forceinline__ bool padded_before(const T* keys, const int64_t* idx, int64_t a,
                                              int64_t b, int64_t D, bool descending) {
  const int64_t ia = idx[a], ib = idx[b];
  if (ia >= D || ib >= D) return ib >= D && (ia < D || ia < ib);
  return sorts_before(keys[a], ia, keys[b], ib, descending);
}

// One block per row (grid-stride over rows); P is D rounded up to a power of two.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    sort_rows_shared_kernel(T* values, int64_t* indices, const T* in, int64_t rows, int64_t D,
                            int64_t P, bool descending) {
  EMBER_DYNAMIC_SHARED(int64_t, idx);
  T* keys = reinterpret_cast<T*>(idx + P);
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* x = in + row * D;
    for (int64_t t = threadIdx.x; t < P; t += blockDim.x) {
      idx[t] = t;
      if (t < D) keys[t] = x[t];
    }
    __syncthreads();
    for (int64_t k = 2; k <= P; k <<= 1) {
      for (int64_t j = k >> 1; j > 0; j >>= 1) {
        for (int64_t t = threadIdx.x; t < P; t += blockDim.x) {
          const int64_t u = t ^ j;
          if (u <= t) continue;
          // Runs of k alternate direction so that each pair of runs forms a bitonic sequence.
          const bool ascending_run = (t & k) == 0;
          const bool swap = ascending_run ? padded_before(keys, idx, u, t, D, descending)
                                          : padded_before(keys, idx, t, u, D, descending);
          if (swap) {
            const T kt = keys[t];
            keys[t] = keys[u];
            keys[u] = kt;
            const int64_t it = idx[t];
            idx[t] = idx[u];
            idx[u] = it;
          }
        }
        __syncthreads();
      }
    }
    for (int64_t t = threadIdx.x; t < D; t += blockDim.x) {
      values[row * D + t] = keys[t];
      indices[row * D + t] = idx[t];
    }
    __syncthreads();  // the next row overwrites the shared arrays
  }
}

// Runs of length 1: every element with its own position as index.
template <typename T>
__global__ void sort_init_kernel(T* values, int64_t* indices, const T* in, int64_t n, int64_t D) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    values[i] = in[i];
    indices[i] = i % D;
  }
}

// Merges neighbouring sorted runs of length w (within each row) from src into dst.
template <typename T>
__global__ void merge_pass_kernel(T* dst_values, int64_t* dst_indices, const T* src_values,
                                  const int64_t* src_indices, int64_t n, int64_t D, int64_t w,
                                  bool descending) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = i - i % D, j = i % D;
    const int64_t start = j - j % (2 * w);
    const bool left = j < start + w;
    const int64_t own = left ? j - start : j - start - w;
    // The neighbour run: [lo, hi), empty for a left run at the row's end.
    int64_t lo = left ? (start + w < D ? start + w : D) : start;
    int64_t hi = left ? (start + 2 * w < D ? start + 2 * w : D) : start + w;
    const int64_t first = lo;
    const T key = src_values[i];
    const int64_t key_index = src_indices[i];
    while (lo < hi) {  // count the neighbour run's elements that come before this one
      const int64_t mid = lo + (hi - lo) / 2;
      if (sorts_before(src_values[base + mid], src_indices[base + mid], key, key_index,
                       descending)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    const int64_t pos = base + start + own + (lo - first);
    dst_values[pos] = key;
    dst_indices[pos] = key_index;
  }
}

}  // namespace

void CudaBackend::sort(const Tensor& values, const Tensor& indices, const Tensor& in,
                       bool descending) {
  check_operands("sort", {&values, &indices, &in});
  const int64_t D = in.dim() == 0 ? 1 : in.size(-1);
  const int64_t n = in.numel();
  if (n == 0 || D == 0) return;
  const int64_t rows = n / D;
  DeviceGuard guard(values.device().index());
  cudaStream_t stream = detail::stream_of(values);
  EMBER_DISPATCH_ALL(in.dtype(), "sort", [&] {
    if (D <= kSharedSortLength) {
      int64_t P = 1;
      while (P < D) P <<= 1;
      const unsigned threads = static_cast<unsigned>(P < kThreads ? P : kThreads);
      const unsigned blocks = static_cast<unsigned>(rows < 65535 ? rows : 65535);
      const size_t shared = static_cast<size_t>(P) * (sizeof(int64_t) + sizeof(scalar_t));
      launch_kernel(EMBER_KERNEL(sort_rows_shared_kernel<scalar_t>),
                    {blocks, threads, shared, stream}, values.data_ptr<scalar_t>(),
                    indices.data_ptr<int64_t>(), in.data_ptr<scalar_t>(), rows, D, P, descending);
      EMBER_CUDA_CHECK(cudaGetLastError());
      return;
    }
    int passes = 0;
    for (int64_t w = 1; w < D; w <<= 1) ++passes;
    Tensor tmp_values = make_empty(values.sizes(), values.dtype(), values.device());
    Tensor tmp_indices = make_empty(indices.sizes(), kLong, values.device());
    // Ping-pong so that the last pass writes into values/indices.
    scalar_t* v[2] = {values.data_ptr<scalar_t>(), tmp_values.data_ptr<scalar_t>()};
    int64_t* ix[2] = {indices.data_ptr<int64_t>(), tmp_indices.data_ptr<int64_t>()};
    int cur = passes % 2;
    launch_kernel(EMBER_KERNEL(sort_init_kernel<scalar_t>), {grid_for(n), kThreads, 0, stream},
                  v[cur], ix[cur], in.data_ptr<scalar_t>(), n, D);
    EMBER_CUDA_CHECK(cudaGetLastError());
    for (int64_t w = 1; w < D; w <<= 1) {
      launch_kernel(EMBER_KERNEL(merge_pass_kernel<scalar_t>), {grid_for(n), kThreads, 0, stream},
                    v[1 - cur], ix[1 - cur], v[cur], ix[cur], n, D, w, descending);
      EMBER_CUDA_CHECK(cudaGetLastError());
      cur = 1 - cur;
    }
  });
}

}  // namespace ember::cuda
