// Softmax and log_softmax on CUDA. Rows along the last dim (inner == 1) get one warp each: the
// lanes stride over the row and combine the maximum and the sum by shuffles, the same three
// passes as core/softmax_row.h. Rows along another dim are `inner` apart, so one thread per row
// running softmax_row itself reads coalesced across the warp.
#include <math.h>

#include "core/softmax_row.h"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"

namespace ember::cuda {
namespace {

constexpr int kWarp = 32;

template <typename Acc>
__device__ __forceinline__ Acc warp_sum(Acc v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// The row maximum; NaN if any lane saw one.
template <typename Acc>
__device__ __forceinline__ Acc warp_max(Acc m, bool nan) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    const Acc o = __shfl_xor_sync(0xffffffffu, m, offset);
    m = o > m ? o : m;
    nan |= __shfl_xor_sync(0xffffffffu, static_cast<int>(nan), offset) != 0;
  }
  return nan ? Acc(NAN) : m;
}

template <typename T>
__global__ void softmax_warp_kernel(T* out, const T* in, int64_t rows, int64_t D, bool log_space) {
  using Acc = acc_t<T>;
  const int lane = threadIdx.x % kWarp;
  const int64_t warps = int64_t(gridDim.x) * blockDim.x / kWarp;
  for (int64_t row = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / kWarp; row < rows;
       row += warps) {
    const T* x = in + row * D;
    T* y = out + row * D;
    Acc m = Acc(-INFINITY);
    bool nan = false;
    for (int64_t i = lane; i < D; i += kWarp) {
      const Acc v = static_cast<Acc>(x[i]);
      nan |= v != v;
      m = v > m ? v : m;
    }
    m = warp_max(m, nan);
    Acc sum = Acc(0);
    for (int64_t i = lane; i < D; i += kWarp) sum += ::exp(static_cast<Acc>(x[i]) - m);
    sum = warp_sum(sum);
    if (log_space) {
      const Acc log_sum = ::log(sum);  // (x - m) - log_sum, in this order (see softmax_row.h)
      for (int64_t i = lane; i < D; i += kWarp) {
        y[i] = static_cast<T>((static_cast<Acc>(x[i]) - m) - log_sum);
      }
    } else {
      for (int64_t i = lane; i < D; i += kWarp) {
        y[i] = static_cast<T>(::exp(static_cast<Acc>(x[i]) - m) / sum);
      }
    }
  }
}

template <typename T>
__global__ void softmax_backward_warp_kernel(T* grad_in, const T* grad_out, const T* out,
                                             int64_t rows, int64_t D, bool log_space) {
  using Acc = acc_t<T>;
  const int lane = threadIdx.x % kWarp;
  const int64_t warps = int64_t(gridDim.x) * blockDim.x / kWarp;
  for (int64_t row = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / kWarp; row < rows;
       row += warps) {
    const T* g = grad_out + row * D;
    const T* y = out + row * D;
    T* gx = grad_in + row * D;
    Acc dot = Acc(0);
    for (int64_t i = lane; i < D; i += kWarp) {
      const Acc gi = static_cast<Acc>(g[i]);
      dot += log_space ? gi : gi * static_cast<Acc>(y[i]);
    }
    dot = warp_sum(dot);
    for (int64_t i = lane; i < D; i += kWarp) {
      const Acc gi = static_cast<Acc>(g[i]), yi = static_cast<Acc>(y[i]);
      gx[i] = static_cast<T>(log_space ? gi - ::exp(yi) * dot : yi * (gi - dot));
    }
  }
}

template <typename T>
__global__ void softmax_strided_kernel(T* out, const T* in, int64_t rows, int64_t D, int64_t inner,
                                       bool log_space) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows;
       r += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = (r / inner) * D * inner + r % inner;
    softmax_row<T, acc_t<T>>(out + base, in + base, D, inner, log_space);
  }
}

template <typename T>
__global__ void softmax_backward_strided_kernel(T* grad_in, const T* grad_out, const T* out,
                                                int64_t rows, int64_t D, int64_t inner,
                                                bool log_space) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows;
       r += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = (r / inner) * D * inner + r % inner;
    softmax_backward_row<T, acc_t<T>>(grad_in + base, grad_out + base, out + base, D, inner,
                                      log_space);
  }
}

}  // namespace

void CudaBackend::softmax(const Tensor& out, const Tensor& in, int64_t outer, int64_t D,
                          int64_t inner, bool log_space) {
  const int64_t rows = outer * inner;
  if (rows == 0 || D == 0) return;
  check_operands(log_space ? "log_softmax" : "softmax", {&out, &in});
  DeviceGuard guard(out.device().index());  // launch on the tensors' device, not the current one
  cudaStream_t stream = detail::stream_of(out);
  EMBER_DISPATCH_FLOATING(in.dtype(), log_space ? "log_softmax" : "softmax", [&] {
    if (inner == 1) {
      launch_kernel(EMBER_KERNEL(softmax_warp_kernel<scalar_t>),
                    {grid_for(rows * kWarp), kThreads, 0, stream}, out.data_ptr<scalar_t>(),
                    in.data_ptr<scalar_t>(), rows, D, log_space);
    } else {
      launch_kernel(EMBER_KERNEL(softmax_strided_kernel<scalar_t>),
                    {grid_for(rows), kThreads, 0, stream}, out.data_ptr<scalar_t>(),
                    in.data_ptr<scalar_t>(), rows, D, inner, log_space);
    }
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out,
                                   int64_t outer, int64_t D, int64_t inner, bool log_space) {
  const int64_t rows = outer * inner;
  if (rows == 0 || D == 0) return;
  check_operands("softmax_backward", {&grad_in, &grad_out, &out});
  DeviceGuard guard(grad_in.device().index());
  cudaStream_t stream = detail::stream_of(grad_in);
  EMBER_DISPATCH_FLOATING(out.dtype(), "softmax_backward", [&] {
    if (inner == 1) {
      launch_kernel(EMBER_KERNEL(softmax_backward_warp_kernel<scalar_t>),
                    {grid_for(rows * kWarp), kThreads, 0, stream}, grad_in.data_ptr<scalar_t>(),
                    grad_out.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), rows, D, log_space);
    } else {
      launch_kernel(EMBER_KERNEL(softmax_backward_strided_kernel<scalar_t>),
                    {grid_for(rows), kThreads, 0, stream}, grad_in.data_ptr<scalar_t>(),
                    grad_out.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), rows, D, inner,
                    log_space);
    }
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda
