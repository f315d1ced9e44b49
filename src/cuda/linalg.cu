// The LU and Cholesky families on CUDA: one thread per matrix factorises it (kernel_math/lu.h,
// the arithmetic of LAPACK's getrf and potrf that the CPU backend calls), and one thread per
// right-hand side solves.
// This is the reference design, right for the small matrices of parametrisations, determinants
// and per-sample solves; large matrices want cuSOLVER's blocked getrf (docs/linalg.md).
#include <cstdint>

#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "kernel_math/lu.h"

namespace ember::cuda {
namespace {

template <typename T>
__global__ void lu_factor_kernel(T* lu, int32_t* pivots, int32_t* info, int64_t batch, int64_t n) {
  for (int64_t b = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; b < batch;
       b += int64_t(gridDim.x) * blockDim.x) {
    info[b] = lu_factor_column_major(lu + b * n * n, pivots + b * n, n);
  }
}

template <typename T>
__global__ void lu_solve_kernel(T* x, const T* lu, const int32_t* pivots, int64_t batch, int64_t n,
                                int64_t k, bool transpose) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < batch * k;
       r += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = r / k;
    lu_solve_column_major(lu + b * n * n, pivots + b * n, x + r * n, n, transpose);
  }
}

template <typename T>
__global__ void cholesky_kernel(T* factor, int32_t* info, int64_t batch, int64_t n) {
  for (int64_t b = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; b < batch;
       b += int64_t(gridDim.x) * blockDim.x) {
    info[b] = cholesky_column_major(factor + b * n * n, n);
  }
}

}  // namespace

void CudaBackend::cholesky(const Tensor& factor, const Tensor& info) {
  if (factor.numel() == 0) return;
  check_operands("cholesky", {&factor, &info});
  DeviceGuard guard(factor.device().index());
  const int64_t batch = factor.size(0), n = factor.size(1);
  const LaunchConfig config{grid_for(batch), kThreads, 0, detail::stream_of(factor)};
  if (factor.scalar_type() == kDouble) {
    launch_kernel(EMBER_KERNEL(cholesky_kernel<double>), config, factor.data_ptr<double>(),
                  info.data_ptr<int32_t>(), batch, n);
  } else {
    launch_kernel(EMBER_KERNEL(cholesky_kernel<float>), config, factor.data_ptr<float>(),
                  info.data_ptr<int32_t>(), batch, n);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info) {
  if (lu.numel() == 0) return;
  check_operands("lu_factor", {&lu, &pivots, &info});
  DeviceGuard guard(lu.device().index());
  const int64_t batch = lu.size(0), n = lu.size(1);
  const LaunchConfig config{grid_for(batch), kThreads, 0, detail::stream_of(lu)};
  if (lu.scalar_type() == kDouble) {
    launch_kernel(EMBER_KERNEL(lu_factor_kernel<double>), config, lu.data_ptr<double>(),
                  pivots.data_ptr<int32_t>(), info.data_ptr<int32_t>(), batch, n);
  } else {
    launch_kernel(EMBER_KERNEL(lu_factor_kernel<float>), config, lu.data_ptr<float>(),
                  pivots.data_ptr<int32_t>(), info.data_ptr<int32_t>(), batch, n);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::lu_solve(const Tensor& x, const Tensor& lu, const Tensor& pivots,
                           bool transpose) {
  if (x.numel() == 0) return;
  check_operands("lu_solve", {&x, &lu, &pivots});
  DeviceGuard guard(x.device().index());
  const int64_t batch = lu.size(0), n = lu.size(1), k = x.size(1);
  const LaunchConfig config{grid_for(batch * k), kThreads, 0, detail::stream_of(x)};
  if (lu.scalar_type() == kDouble) {
    launch_kernel(EMBER_KERNEL(lu_solve_kernel<double>), config, x.data_ptr<double>(),
                  lu.data_ptr<double>(), pivots.data_ptr<int32_t>(), batch, n, k, transpose);
  } else {
    launch_kernel(EMBER_KERNEL(lu_solve_kernel<float>), config, x.data_ptr<float>(),
                  lu.data_ptr<float>(), pivots.data_ptr<int32_t>(), batch, n, k, transpose);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda
