// Scan family on CUDA: cumsum and cumprod along the middle dim of [outer, D, inner]. One thread
// per (outer, inner) line runs the scan serially in kernel_math/scan_acc.h's type, the same order
// of operations as the CPU; neighbouring threads read neighbouring elements when inner > 1.
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "kernel_math/scan_acc.h"

namespace ember::cuda {
namespace {

template <typename T>
__global__ void scan_lines_kernel(T* out, const T* in, int64_t lines, int64_t D, int64_t inner,
                                  ScanOp op) {
  using A = scan_acc_t<T>;
  for (int64_t l = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; l < lines;
       l += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = (l / inner) * D * inner + l % inner;
    A acc = op == ScanOp::Sum ? A(0) : A(1);
    for (int64_t d = 0; d < D; ++d) {
      acc = scan_combine<A>(op, acc, static_cast<A>(in[base + d * inner]));
      out[base + d * inner] = static_cast<T>(acc);
    }
  }
}

}  // namespace

void CudaBackend::scan(ScanOp op, const Tensor& out, const Tensor& in, int64_t outer, int64_t D,
                       int64_t inner) {
  const int64_t lines = outer * inner;
  if (lines == 0 || D == 0) return;
  check_operands(op == ScanOp::Sum ? "cumsum" : "cumprod", {&out, &in});
  DeviceGuard guard(out.device().index());
  cudaStream_t stream = detail::stream_of(out);
  EMBER_DISPATCH_ALL(in.dtype(), "scan", [&] {
    launch_kernel(EMBER_KERNEL(scan_lines_kernel<scalar_t>), {grid_for(lines), kThreads, 0, stream},
                  out.data_ptr<scalar_t>(), in.data_ptr<scalar_t>(), lines, D, inner, op);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda
