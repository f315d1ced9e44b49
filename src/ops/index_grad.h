#pragma once
// Gradient rules of the index ops that other front ends reuse (internal).
#include "ember/tensor.h"

namespace ember {

// The gradient of gather(input of `in_sizes`, dim, index) for the output gradient `grad`: grad
// scatter-added into zeros. Differentiable in grad (its own gradient is the gather again).
Tensor gather_backward(const Tensor& grad, IntArrayRef in_sizes, int64_t dim, const Tensor& index);

}  // namespace ember
