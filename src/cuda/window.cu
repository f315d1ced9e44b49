// Sliding windows on CUDA: im2col, col2im and max pooling, one thread per element written, with
// the per-window math of kernel_math/window2d.h (the CPU tests check the same functions). col2im is
// the gather form, so no atomics are needed and the result does not depend on scheduling.
#include <math.h>

#include "cuda/atomic.cuh"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"

namespace ember::cuda {
namespace {

template <typename T>
__global__ void im2col_kernel(T* cols, const T* in, Window2d g, int64_t total) {
  const int64_t K = g.columns(), L = g.positions(), HW = g.plane();
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t l = e % L, k = (e / L) % K, n = e / (K * L);
    const int64_t j = k % g.kw, i = (k / g.kw) % g.kh, c = k / (g.kw * g.kh);
    const int64_t h = g.row_of(l / g.out_w, i), w = g.col_of(l % g.out_w, j);
    const bool inside = h >= 0 && h < g.height && w >= 0 && w < g.width;
    cols[e] = inside ? in[(n * g.channels + c) * HW + h * g.width + w] : T(0.0f);
  }
}

template <typename T>
__global__ void col2im_kernel(T* out, const T* cols, Window2d g, int64_t total) {
  const int64_t HW = g.plane(), sample = g.positions() * g.columns();
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t w = e % g.width, h = (e / g.width) % g.height;
    const int64_t c = (e / HW) % g.channels, n = e / (HW * g.channels);
    out[e] = static_cast<T>(col2im_sum<T, acc_t<T>>(g, cols + n * sample, c, h, w));
  }
}

template <typename T>
__global__ void max_pool_kernel(T* values, int64_t* indices, const T* in, Window2d g,
                                int64_t total) {
  const int64_t L = g.positions();
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t l = e % L, p = e / L;
    const T* plane = in + p * g.plane();
    const int64_t at = window_argmax<T, acc_t<T>>(g, plane, l / g.out_w, l % g.out_w);
    indices[e] = at;
    values[e] = at >= 0 ? plane[at] : T(-INFINITY);
  }
}

// One thread per output gradient, added at its index; windows may overlap, hence the atomics.
template <typename T>
__global__ void max_pool_backward_kernel(T* grad_in, const T* grad_out, const int64_t* indices,
                                         Window2d g, int64_t total) {
  const int64_t L = g.positions();
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    atomic_add(grad_in + (e / L) * g.plane() + indices[e], grad_out[e]);
  }
}

}  // namespace

void CudaBackend::im2col(const Tensor& cols, const Tensor& in, const Window2d& g) {
  const int64_t total = cols.numel();
  if (total == 0) return;
  check_operands("im2col", {&cols, &in});
  DeviceGuard guard(cols.device().index());  // launch on the tensors' device, not the current one
  EMBER_DISPATCH_FLOATING(in.dtype(), "im2col", [&] {
    launch_kernel(EMBER_KERNEL(im2col_kernel<scalar_t>),
                  {grid_for(total), kThreads, 0, detail::stream_of(cols)},
                  cols.data_ptr<scalar_t>(), in.data_ptr<scalar_t>(), g, total);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::col2im(const Tensor& out, const Tensor& cols, const Window2d& g) {
  const int64_t total = out.numel();
  if (total == 0) return;
  check_operands("col2im", {&out, &cols});
  DeviceGuard guard(out.device().index());
  EMBER_DISPATCH_FLOATING(cols.dtype(), "col2im", [&] {
    launch_kernel(EMBER_KERNEL(col2im_kernel<scalar_t>),
                  {grid_for(total), kThreads, 0, detail::stream_of(out)}, out.data_ptr<scalar_t>(),
                  cols.data_ptr<scalar_t>(), g, total);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& in,
                             const Window2d& g) {
  const int64_t total = values.numel();
  if (total == 0) return;
  check_operands("max_pool2d", {&values, &indices, &in});
  DeviceGuard guard(values.device().index());
  EMBER_DISPATCH_FLOATING(in.dtype(), "max_pool2d", [&] {
    launch_kernel(EMBER_KERNEL(max_pool_kernel<scalar_t>),
                  {grid_for(total), kThreads, 0, detail::stream_of(values)},
                  values.data_ptr<scalar_t>(), indices.data_ptr<int64_t>(), in.data_ptr<scalar_t>(),
                  g, total);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::max_pool2d_backward(const Tensor& grad_in, const Tensor& grad_out,
                                      const Tensor& indices, const Window2d& g) {
  if (grad_in.numel() == 0) return;
  check_operands("max_pool2d_backward", {&grad_in, &grad_out, &indices});
  DeviceGuard guard(grad_in.device().index());
  cudaStream_t stream = detail::stream_of(grad_in);
  EMBER_CUDA_CHECK(cudaMemsetAsync(grad_in.data_ptr(), 0, grad_in.nbytes(), stream));
  const int64_t total = grad_out.numel();
  if (total == 0) return;
  EMBER_DISPATCH_FLOATING(grad_out.dtype(), "max_pool2d_backward", [&] {
    launch_kernel(EMBER_KERNEL(max_pool_backward_kernel<scalar_t>),
                  {grid_for(total), kThreads, 0, stream}, grad_in.data_ptr<scalar_t>(),
                  grad_out.data_ptr<scalar_t>(), indices.data_ptr<int64_t>(), g, total);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda
