#pragma once
// float32 convolutions through oneDNN when Ember is built with it (src/cpu_dnnl/, the kernels
// libtorch's CPU convolution uses): direct JIT kernels on blocked layouts, with the reorders to and
// from NCHW around them. Without oneDNN (src/cpu_dnnl_off/) there are none and the front end
// composes im2col and a GEMM.
#include "ember/tensor.h"
#include "kernel_math/window.h"

namespace ember::cpu {

// Whether this build has oneDNN's convolutions (float32 only; the caller checks the dtype).
EMBER_API bool dnnl_convolution_available();

// CpuBackend's convolution and convolution_backward families (core/backend.h has the contract):
// in [N, C, H, W] or [N, C, D, H, W], contiguous float32; weight [O, C / groups, (kd,) kh, kw].
void dnnl_convolution(const Tensor& out, const Tensor& in, const Tensor& weight, const Tensor& bias,
                      const Window& g, int64_t groups);
void dnnl_convolution_backward(const Tensor& grad_in, const Tensor& grad_weight,
                               const Tensor& grad_bias, const Tensor& grad_out, const Tensor& in,
                               const Tensor& weight, const Window& g, int64_t groups);

// The kernel oneDNN picks for a forward of this case ("brgconv:avx512_core", "jit:avx2", ...;
// empty without oneDNN): for tests and benchmarks.
EMBER_API std::string dnnl_convolution_kernel(const Tensor& in, const Tensor& weight,
                                              const Window& g, int64_t groups);

}  // namespace ember::cpu
