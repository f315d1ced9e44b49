#pragma once
// Vectorised transcendental math for the CPU kernels: exp, log, log1p, tanh, erf, the activations
// built on them and gelu's gradients, and softmax rows forward and backward, over contiguous
// float32/float64 arrays.
// The math is SLEEF's
// (Debian's libsleef, the library libtorch uses) with its 1-ULP (`_u10`) functions, compiled once
// per instruction set (src/cpu/simd/) and chosen when the library is first used, so one build runs
// AVX-512 where the CPU has it and AVX2 elsewhere. EMBER_CPU_CAPABILITY=default|avx2|avx512 caps
// the choice (as ATEN_CPU_CAPABILITY does in PyTorch). Without SLEEF or on a CPU without AVX2 there
// are no kernels and the callers keep the scalar functors (kernel_math/functors.h).
#include <cstdint>
#include <type_traits>

#include "ember/macros.h"

namespace ember::cpu {

enum class CpuIsa : int { kScalar = 0, kAvx2 = 1, kAvx512 = 2 };

// The ops with a vector kernel; each computes the same formula as its functor in
// kernel_math/functors.h.
enum class VecUnary : int {
  kExp,
  kLog,
  kLog1p,
  kTanh,
  kSigmoid,
  kGelu,
  kGeluTanh,
  kSilu,
  kErf,
  kCount
};

// Binary ops with a vector kernel (the same formula as their functor): out = f(a, b).
enum class VecBinary : int {
  kGeluBackward,      // a * gelu'(b), GeluBackwardOp
  kGeluTanhBackward,  // a * gelu_tanh'(b), GeluTanhBackwardOp
  kCount
};

template <typename T>
using VecUnaryFn = void (*)(T* out, const T* in, int64_t n);  // out may equal in
template <typename T>
using VecBinaryFn = void (*)(T* out, const T* a, const T* b, int64_t n);  // out may equal a or b
template <typename T>
using VecSoftmaxFn = void (*)(T* out, const T* in, int64_t D, bool log_space);  // one whole row
template <typename T>  // the gradient of one row from the saved output y
using VecSoftmaxBackwardFn = void (*)(T* grad_in, const T* grad_out, const T* y, int64_t D,
                                      bool log_space);
// A dim other than the last: `ncols` neighbouring softmaxes of D elements `stride` apart.
template <typename T>
using VecSoftmaxColsFn = void (*)(T* out, const T* in, int64_t D, int64_t stride, int64_t ncols,
                                  bool log_space);
template <typename T>
using VecSoftmaxBackwardColsFn = void (*)(T* grad_in, const T* grad_out, const T* y, int64_t D,
                                          int64_t stride, int64_t ncols, bool log_space);

struct VecMathKernels {
  CpuIsa isa;
  VecUnaryFn<float> unary_f32[static_cast<int>(VecUnary::kCount)];
  VecUnaryFn<double> unary_f64[static_cast<int>(VecUnary::kCount)];
  VecSoftmaxFn<float> softmax_f32;
  VecSoftmaxFn<double> softmax_f64;
  VecSoftmaxBackwardFn<float> softmax_backward_f32;
  VecSoftmaxBackwardFn<double> softmax_backward_f64;
  VecSoftmaxColsFn<float> softmax_cols_f32;
  VecSoftmaxColsFn<double> softmax_cols_f64;
  VecSoftmaxBackwardColsFn<float> softmax_backward_cols_f32;
  VecSoftmaxBackwardColsFn<double> softmax_backward_cols_f64;
  VecBinaryFn<float> binary_f32[static_cast<int>(VecBinary::kCount)];
  VecBinaryFn<double> binary_f64[static_cast<int>(VecBinary::kCount)];

  template <typename T>
  VecUnaryFn<T> unary(VecUnary op) const {
    if constexpr (std::is_same_v<T, float>)
      return unary_f32[static_cast<int>(op)];
    else
      return unary_f64[static_cast<int>(op)];
  }
  template <typename T>
  VecBinaryFn<T> binary(VecBinary op) const {
    if constexpr (std::is_same_v<T, float>)
      return binary_f32[static_cast<int>(op)];
    else
      return binary_f64[static_cast<int>(op)];
  }
  template <typename T>
  VecSoftmaxFn<T> softmax() const {
    if constexpr (std::is_same_v<T, float>)
      return softmax_f32;
    else
      return softmax_f64;
  }
  template <typename T>
  VecSoftmaxBackwardFn<T> softmax_backward() const {
    if constexpr (std::is_same_v<T, float>)
      return softmax_backward_f32;
    else
      return softmax_backward_f64;
  }
  template <typename T>
  VecSoftmaxColsFn<T> softmax_cols() const {
    if constexpr (std::is_same_v<T, float>)
      return softmax_cols_f32;
    else
      return softmax_cols_f64;
  }
  template <typename T>
  VecSoftmaxBackwardColsFn<T> softmax_backward_cols() const {
    if constexpr (std::is_same_v<T, float>)
      return softmax_backward_cols_f32;
    else
      return softmax_backward_cols_f64;
  }
};

// The kernels the CPU backend uses (the widest ISA the CPU supports, capped by
// EMBER_CPU_CAPABILITY), or nullptr for the scalar path.
EMBER_API const VecMathKernels* vec_math();
// The kernels of one ISA, or nullptr when this CPU or build lacks them (tests run each ISA).
EMBER_API const VecMathKernels* vec_math_for(CpuIsa isa);
EMBER_API const char* cpu_isa_name(CpuIsa isa);

// Defined by the per-ISA files in src/cpu/simd/; call only after checking the CPU supports them.
const VecMathKernels& vec_math_avx2();
const VecMathKernels& vec_math_avx512();

}  // namespace ember::cpu
