// Mixed-precision kernels for amp::GradScaler on CUDA: the fused unscale + non-finite check over
// a list of gradients (one launch per up to kMaxTensors gradients of one dtype: blockIdx.y picks
// the gradient, the x blocks stride over it), and the one-thread scale update, so GradScaler never
// waits for the GPU except where PyTorch does (deciding whether to step).
#include <math.h>

#include <algorithm>

#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "kernel_math/dispatch.h"
#include "kernel_math/scaling_math.h"

namespace ember::cuda {
namespace {

constexpr int kMaxTensors = 96;                // keeps the argument block near 1.5 KiB
constexpr int64_t kMaxBlocksPerTensor = 1024;  // grid-stride beyond that

// The gradients of one launch, passed by value; the simulator checks each pointer.
template <typename T>
struct GradList {
  T* data[kMaxTensors];
  int64_t numel[kMaxTensors];
  int count = 0;
  template <typename V>
  void visit_pointers(V&& visit) const {
    for (int i = 0; i < count; ++i) visit(static_cast<const void*>(data[i]));
  }
};

template <typename T>
__global__ void __launch_bounds__(kThreads)
    non_finite_check_and_unscale_kernel(GradList<T> grads, float* found_inf,
                                        const float* inv_scale) {
  using Acc = acc_t<T>;
  T* p = grads.data[blockIdx.y];
  const int64_t n = grads.numel[blockIdx.y];
  const float inv = *inv_scale;
  bool bad = false;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const Acc v = static_cast<Acc>(p[i]);
    bad = bad || !isfinite(v);
    p[i] = static_cast<T>(amp::unscaled(v, inv));
  }
  // Every writer stores the same value, so the race is harmless (as in PyTorch's kernel).
  if (bad) *found_inf = 1.f;
}

__global__ void update_scale_kernel(float* scale, int32_t* growth_tracker, const float* found_inf,
                                    double growth_factor, double backoff_factor,
                                    int32_t growth_interval) {
  amp::update_scale_value(scale, growth_tracker, found_inf, growth_factor, backoff_factor,
                          growth_interval);
}

}  // namespace

void CudaBackend::non_finite_check_and_unscale(const std::vector<Tensor>& grads,
                                               const Tensor& found_inf, const Tensor& inv_scale) {
  if (grads.empty()) return;
  DeviceGuard guard(found_inf.device().index());
  cudaStream_t stream = detail::stream_of(found_inf);
  EMBER_DISPATCH_FLOATING(grads[0].dtype(), "non_finite_check_and_unscale", [&] {
    for (size_t first = 0; first < grads.size(); first += kMaxTensors) {
      GradList<scalar_t> list;
      int64_t longest = 0;
      for (size_t i = first; i < grads.size() && list.count < kMaxTensors; ++i) {
        list.data[list.count] = grads[i].data_ptr<scalar_t>();
        list.numel[list.count] = grads[i].numel();
        longest = std::max(longest, grads[i].numel());
        ++list.count;
      }
      if (longest == 0) continue;
      const int64_t blocks = std::min((longest + kThreads - 1) / kThreads, kMaxBlocksPerTensor);
      launch_kernel(EMBER_KERNEL(non_finite_check_and_unscale_kernel<scalar_t>),
                    {dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(list.count)),
                     kThreads, 0, stream},
                    list, found_inf.data_ptr<float>(), inv_scale.data_ptr<float>());
      EMBER_CUDA_CHECK(cudaGetLastError());
    }
  });
  for (const Tensor& g : grads) g.bump_version();
}

void CudaBackend::update_scale(const Tensor& scale, const Tensor& growth_tracker,
                               const Tensor& found_inf, double growth_factor, double backoff_factor,
                               int64_t growth_interval) {
  DeviceGuard guard(scale.device().index());
  launch_kernel(EMBER_KERNEL(update_scale_kernel), {1, 1, 0, detail::stream_of(scale)},
                scale.data_ptr<float>(), growth_tracker.data_ptr<int32_t>(),
                found_inf.data_ptr<float>(), growth_factor, backoff_factor,
                static_cast<int32_t>(growth_interval));
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda
