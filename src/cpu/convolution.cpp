// The convolution families on the CPU: oneDNN's kernels (cpu/dnnl_convolution.h) for float32 when
// Ember is built with it and backends::mkldnn::enabled(); otherwise has_convolution() says no and
// the front end composes im2col and a GEMM.
#include "cpu/cpu_backend.h"
#include "cpu/dnnl_convolution.h"
#include "cpu/num_threads.h"
#include "ember/backends.h"

namespace ember::cpu {

bool CpuBackend::has_convolution(const Tensor& in, const Window&, int64_t) {
  return in.dtype() == kFloat && backends::mkldnn::enabled() && dnnl_convolution_available();
}

void CpuBackend::convolution(const Tensor& out, const Tensor& in, const Tensor& weight,
                             const Tensor& bias, const Window& g, int64_t groups) {
  intra_op_threads();  // oneDNN reads this thread's OpenMP setting
  dnnl_convolution(out, in, weight, bias, g, groups);
}

void CpuBackend::convolution_backward(const Tensor& grad_in, const Tensor& grad_weight,
                                      const Tensor& grad_bias, const Tensor& grad_out,
                                      const Tensor& in, const Tensor& weight, const Window& g,
                                      int64_t groups) {
  intra_op_threads();
  dnnl_convolution_backward(grad_in, grad_weight, grad_bias, grad_out, in, weight, g, groups);
}

}  // namespace ember::cpu
