// The row_norm families on CUDA (kernel_math/row_norm.h has the math, src/cpu/row_norm.cpp the
// CPU's loops).
//   Forward: one block per row (grid-stride over rows): the row's sum, then its squared
//     deviations about the mean, each combined over the block in a fixed order (warp_reduce.cuh),
//     then the write pass.
//   Backward, grad_in: one block per row, its two sums combined the same way, then the write.
//   Backward, weight gradients: layer_norm's (a weight per element) one thread per (weight
//     element, chunk of rows), so neighbouring threads read neighbouring elements, then one thread
//     per weight element adding its chunks in order; group and instance norm's (a weight per run
//     of `inner` elements) one block per weight element over its runs.
// No atomics, so every gradient has the same bits on every run.
#include <math.h>

#include <algorithm>
#include <cstdint>

#include "core/tensor_factory.h"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "cuda/warp_reduce.cuh"
#include "kernel_math/row_norm.h"

namespace ember::cuda {
namespace {

template <typename T>
struct SumOf {
  __device__ T operator()(T a, T b) const { return a + b; }
};

// `v` summed over the block; every thread gets the sum. `slot` is one shared value.
template <typename T>
__device__ __forceinline__ T block_sum(T v, T* scratch, T* slot) {
  v = group_combine(v, scratch, SumOf<T>());
  if (threadIdx.x == 0) *slot = v;
  __syncthreads();
  v = *slot;
  __syncthreads();  // the slot may be written again right after
  return v;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    row_norm_kernel(T* y, T* means, T* rstds, const T* x, const T* w, const T* b,
                    RowNormGeometry g) {
  __shared__ T scratch[kThreads / kWarpSize];
  __shared__ T slot;
  const int64_t K = g.row_size, W = g.weights_per_group;
  for (int64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
    const T* xr = x + r * K;
    const T pivot = K > 0 ? xr[0] : T(0);  // as the CPU's: rows far from zero keep precision
    T sum = 0;
    for (int64_t k = threadIdx.x; k < K; k += blockDim.x) sum += xr[k] - pivot;
    const T m = pivot + block_sum(sum, scratch, &slot) / static_cast<T>(K);
    T squares = 0;
    for (int64_t k = threadIdx.x; k < K; k += blockDim.x) squares += (xr[k] - m) * (xr[k] - m);
    const T s = row_norm_rstd(block_sum(squares, scratch, &slot), K, g.eps);
    if (threadIdx.x == 0) {
      means[r] = m;
      rstds[r] = s;
    }
    const int64_t first_weight = (r % g.groups) * W;
    for (int64_t k = threadIdx.x; k < K; k += blockDim.x) {
      T v = (xr[k] - m) * s;
      if (w || b) {
        const int64_t j = first_weight + k / g.inner();
        if (w) v *= w[j];
        if (b) v += b[j];
      }
      y[r * K + k] = v;
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    row_norm_grad_in_kernel(T* dx, const T* dy, const T* x, const T* w, const T* means,
                            const T* rstds, RowNormGeometry g) {
  __shared__ T scratch[kThreads / kWarpSize];
  __shared__ T slot;
  const int64_t K = g.row_size, W = g.weights_per_group;
  for (int64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
    const T m = means[r], s = rstds[r];
    const T* xr = x + r * K;
    const T* dyr = dy + r * K;
    const T* wr = w ? w + (r % g.groups) * W : nullptr;
    T sum_g = 0, sum_gx = 0;
    for (int64_t k = threadIdx.x; k < K; k += blockDim.x) {
      const T gk = wr ? dyr[k] * wr[k / g.inner()] : dyr[k];
      sum_g += gk;
      sum_gx += gk * (xr[k] - m) * s;
    }
    const T a = block_sum(sum_g, scratch, &slot) / static_cast<T>(K);
    const T c = block_sum(sum_gx, scratch, &slot) / static_cast<T>(K);
    for (int64_t k = threadIdx.x; k < K; k += blockDim.x) {
      const T gk = wr ? dyr[k] * wr[k / g.inner()] : dyr[k];
      dx[r * K + k] = s * (gk - a - (xr[k] - m) * s * c);
    }
  }
}

// Weight element j's rows: j's group, then every groups-th row.
__device__ __forceinline__ int64_t rows_per_group(const RowNormGeometry& g) {
  return g.rows / g.groups;
}

// A weight per element (inner == 1), in two steps so that a few hundred weights still fill the
// GPU: thread (j, chunk) sums weight j over its chunk of rows into partial[chunk][j] (dw, then db
// after chunks * total), then one thread per weight adds its chunks in order.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    row_norm_weight_grad_partial_kernel(T* partial, const T* dy, const T* x, const T* means,
                                        const T* rstds, int64_t chunks, RowNormGeometry g) {
  const int64_t W = g.weights_per_group, total = g.weight_count(), K = g.row_size;
  const int64_t rows = rows_per_group(g), per_chunk = (rows + chunks - 1) / chunks;
  const int64_t chunk = blockIdx.y;
  const int64_t end = rows < (chunk + 1) * per_chunk ? rows : (chunk + 1) * per_chunk;
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < total;
       j += int64_t(gridDim.x) * blockDim.x) {
    const int64_t group = j / W, k = j % W;
    T sw = 0, sb = 0;
    for (int64_t n = chunk * per_chunk; n < end; ++n) {
      const int64_t r = group + n * g.groups;
      const T d = dy[r * K + k];
      sw += d * (x[r * K + k] - means[r]) * rstds[r];
      sb += d;
    }
    partial[chunk * total + j] = sw;
    partial[(chunks + chunk) * total + j] = sb;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    row_norm_weight_grad_combine_kernel(T* dw, T* db, const T* partial, int64_t chunks,
                                        int64_t total) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < total;
       j += int64_t(gridDim.x) * blockDim.x) {
    T sw = 0, sb = 0;
    for (int64_t c = 0; c < chunks; ++c) {
      sw += partial[c * total + j];
      sb += partial[(chunks + c) * total + j];
    }
    if (dw) dw[j] = sw;
    if (db) db[j] = sb;
  }
}

// A weight per run of `inner` elements: block j sums over its runs, one run per row of its group.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    row_norm_weight_grad_runs_kernel(T* dw, T* db, const T* dy, const T* x, const T* means,
                                     const T* rstds, RowNormGeometry g) {
  __shared__ T scratch[kThreads / kWarpSize];
  __shared__ T slot;
  const int64_t W = g.weights_per_group, total = g.weight_count(), K = g.row_size;
  const int64_t count = rows_per_group(g) * g.inner();
  for (int64_t j = blockIdx.x; j < total; j += gridDim.x) {
    const int64_t group = j / W, run_start = (j % W) * g.inner();
    T sw = 0, sb = 0;
    for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
      const int64_t r = group + (i / g.inner()) * g.groups;
      const int64_t at = r * K + run_start + i % g.inner();
      sw += dy[at] * (x[at] - means[r]) * rstds[r];
      sb += dy[at];
    }
    sw = block_sum(sw, scratch, &slot);
    sb = block_sum(sb, scratch, &slot);
    if (threadIdx.x == 0) {
      if (dw) dw[j] = sw;
      if (db) db[j] = sb;
    }
  }
}

// Threads per block for rows of K elements: whole warps, no more than the row needs.
unsigned threads_for(int64_t K) {
  const int64_t warps = (K + kWarpSize - 1) / kWarpSize;
  return static_cast<unsigned>(
      std::min<int64_t>(std::max<int64_t>(warps, 1) * kWarpSize, kThreads));
}

unsigned blocks_for(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>(std::max<int64_t>(n, 1), int64_t(1) << 20));
}

template <typename T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}
template <typename T>
T* mutable_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

template <typename T>
void forward(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& in,
             const Tensor& weight, const Tensor& bias, const RowNormGeometry& g) {
  const LaunchConfig config{blocks_for(g.rows), threads_for(g.row_size), 0, detail::stream_of(out)};
  launch_kernel(EMBER_KERNEL(row_norm_kernel<T>), config, out.data_ptr<T>(), mean.data_ptr<T>(),
                rstd.data_ptr<T>(), in.data_ptr<T>(), data_or_null<T>(weight),
                data_or_null<T>(bias), g);
}

template <typename T>
void backward(const Tensor& grad_in, const Tensor& grad_weight, const Tensor& grad_bias,
              const Tensor& grad_out, const Tensor& in, const Tensor& mean, const Tensor& rstd,
              const Tensor& weight, const RowNormGeometry& g) {
  cudaStream_t stream = detail::stream_of(grad_out);
  if (grad_in.defined() && g.rows > 0) {
    launch_kernel(EMBER_KERNEL(row_norm_grad_in_kernel<T>),
                  {blocks_for(g.rows), threads_for(g.row_size), 0, stream}, grad_in.data_ptr<T>(),
                  grad_out.data_ptr<T>(), in.data_ptr<T>(), data_or_null<T>(weight),
                  mean.data_ptr<T>(), rstd.data_ptr<T>(), g);
  }
  if ((grad_weight.defined() || grad_bias.defined()) && g.weight_count() > 0) {
    if (g.inner() == 1) {
      // Enough (weight, chunk) threads to fill the GPU, each chunk at least 16 rows.
      const int64_t total = g.weight_count(), rows = g.rows / g.groups;
      const int64_t wanted = (int64_t(1) << 16) / total + 1;
      const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(wanted, rows / 16));
      Tensor partial = make_empty({2 * chunks * total}, in.scalar_type(), in.device());
      const dim3 grid(grid_for(total), static_cast<unsigned>(chunks));
      launch_kernel(EMBER_KERNEL(row_norm_weight_grad_partial_kernel<T>),
                    {grid, kThreads, 0, stream}, partial.data_ptr<T>(), grad_out.data_ptr<T>(),
                    in.data_ptr<T>(), mean.data_ptr<T>(), rstd.data_ptr<T>(), chunks, g);
      launch_kernel(EMBER_KERNEL(row_norm_weight_grad_combine_kernel<T>),
                    {grid_for(total), kThreads, 0, stream}, mutable_or_null<T>(grad_weight),
                    mutable_or_null<T>(grad_bias), partial.data_ptr<T>(), chunks, total);
    } else {
      launch_kernel(
          EMBER_KERNEL(row_norm_weight_grad_runs_kernel<T>),
          {blocks_for(g.weight_count()), threads_for(g.rows / g.groups * g.inner()), 0, stream},
          mutable_or_null<T>(grad_weight), mutable_or_null<T>(grad_bias), grad_out.data_ptr<T>(),
          in.data_ptr<T>(), mean.data_ptr<T>(), rstd.data_ptr<T>(), g);
    }
  }
}

}  // namespace

void CudaBackend::row_norm(const Tensor& out, const Tensor& mean, const Tensor& rstd,
                           const Tensor& in, const Tensor& weight, const Tensor& bias,
                           const RowNormGeometry& g) {
  if (g.rows == 0) return;
  check_operands("row_norm", {&out, &mean, &rstd, &in, &weight, &bias});
  DeviceGuard guard(out.device().index());
  if (in.scalar_type() == kDouble) {
    forward<double>(out, mean, rstd, in, weight, bias, g);
  } else {
    forward<float>(out, mean, rstd, in, weight, bias, g);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::row_norm_backward(const Tensor& grad_in, const Tensor& grad_weight,
                                    const Tensor& grad_bias, const Tensor& grad_out,
                                    const Tensor& in, const Tensor& mean, const Tensor& rstd,
                                    const Tensor& weight, const RowNormGeometry& g) {
  check_operands("row_norm_backward",
                 {&grad_out, &grad_in, &grad_weight, &grad_bias, &in, &mean, &rstd, &weight});
  DeviceGuard guard(grad_out.device().index());
  if (in.scalar_type() == kDouble) {
    backward<double>(grad_in, grad_weight, grad_bias, grad_out, in, mean, rstd, weight, g);
  } else {
    backward<float>(grad_in, grad_weight, grad_bias, grad_out, in, mean, rstd, weight, g);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda
