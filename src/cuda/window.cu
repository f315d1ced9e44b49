// Sliding windows on CUDA: im2col, col2im and max pooling over 2-D and 3-D inputs (a 2-D input is
// a volume of depth 1), one thread per element written, with the per-window math of
// kernel_math/window.h (the CPU tests check the same functions). col2im and the max-pool backward
// are gather forms, so no atomics are needed and the result does not depend on scheduling.
#include <math.h>

#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"

namespace ember::cuda {
namespace {

template <typename T>
__global__ void im2col_kernel(T* cols, const T* in, Window g, int64_t total) {
  const int64_t K = g.columns(), L = g.positions(), HW = g.plane();
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t l = e % L, k = (e / L) % K, n = e / (K * L);
    const int64_t j = k % g.kw, i = (k / g.kw) % g.kh, a = (k / (g.kw * g.kh)) % g.kd;
    const int64_t c = k / (g.kw * g.kh * g.kd);
    const int64_t d = g.depth_of(l / (g.out_h * g.out_w), a);
    const int64_t h = g.row_of((l / g.out_w) % g.out_h, i), w = g.col_of(l % g.out_w, j);
    const bool inside = d >= 0 && d < g.depth && h >= 0 && h < g.height && w >= 0 && w < g.width;
    cols[e] = inside ? in[(n * g.channels + c) * HW + (d * g.height + h) * g.width + w] : T(0.0f);
  }
}

template <typename T>
__global__ void col2im_kernel(T* out, const T* cols, Window g, int64_t total) {
  const int64_t HW = g.plane(), sample = g.positions() * g.columns();
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t w = e % g.width, h = (e / g.width) % g.height, d = (e / g.layer()) % g.depth;
    const int64_t c = (e / HW) % g.channels, n = e / (HW * g.channels);
    out[e] = static_cast<T>(col2im_sum<T, acc_t<T>>(g, cols + n * sample, c, d, h, w));
  }
}

template <typename T>
__global__ void max_pool_kernel(T* values, int64_t* indices, const T* in, Window g, int64_t total) {
  const int64_t L = g.positions();
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t l = e % L, p = e / L;
    const T* plane = in + p * g.plane();
    const int64_t at = window_argmax<T, acc_t<T>>(g, plane, l / (g.out_h * g.out_w),
                                                  (l / g.out_w) % g.out_h, l % g.out_w);
    indices[e] = at;
    values[e] = at >= 0 ? plane[at] : T(-INFINITY);
  }
}

// One thread per input element: the sum of the output gradients whose window chose it, read in
// window order (the gather form of col2im_sum), so no atomics are needed and the sum is the same
// on every run, as use_deterministic_algorithms asks.
template <typename T>
__global__ void max_pool_backward_kernel(T* grad_in, const T* grad_out, const int64_t* indices,
                                         Window g, int64_t total) {
  const int64_t L = g.positions(), HW = g.plane();
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t at = e % HW, d = at / g.layer(), h = (at / g.width) % g.height;
    const int64_t w = at % g.width;
    const T* go = grad_out + (e / HW) * L;
    const int64_t* chosen = indices + (e / HW) * L;
    acc_t<T> sum = acc_t<T>(0);
    for (int64_t a = 0; a < g.kd; ++a) {
      const int64_t od = window_covering(d, a, g.sd, g.pd, g.dd, g.out_d);
      if (od < 0) continue;
      for (int64_t i = 0; i < g.kh; ++i) {
        const int64_t oh = window_covering(h, i, g.sh, g.ph, g.dh, g.out_h);
        if (oh < 0) continue;
        for (int64_t j = 0; j < g.kw; ++j) {
          const int64_t ow = window_covering(w, j, g.sw, g.pw, g.dw, g.out_w);
          if (ow < 0) continue;
          const int64_t l = (od * g.out_h + oh) * g.out_w + ow;
          if (chosen[l] == at) sum += acc_t<T>(go[l]);
        }
      }
    }
    grad_in[e] = T(sum);
  }
}

}  // namespace

void CudaBackend::im2col(const Tensor& cols, const Tensor& in, const Window& g) {
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

void CudaBackend::col2im(const Tensor& out, const Tensor& cols, const Window& g) {
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
                             const Window& g) {
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
                                      const Tensor& indices, const Window& g) {
  const int64_t total = grad_in.numel();
  if (total == 0) return;
  check_operands("max_pool2d_backward", {&grad_in, &grad_out, &indices});
  DeviceGuard guard(grad_in.device().index());
  EMBER_DISPATCH_FLOATING(grad_out.dtype(), "max_pool2d_backward", [&] {
    launch_kernel(EMBER_KERNEL(max_pool_backward_kernel<scalar_t>),
                  {grid_for(total), kThreads, 0, detail::stream_of(grad_in)},
                  grad_in.data_ptr<scalar_t>(), grad_out.data_ptr<scalar_t>(),
                  indices.data_ptr<int64_t>(), g, total);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda
