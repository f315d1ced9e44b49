#pragma once
// Gradient rules of the index ops that other front ends reuse (internal).
#include "ember/tensor.h"

namespace ember {

// The gradient of gather(input of `in_sizes`, dim, index) for the output gradient `grad`: grad
// scatter-added into zeros. Differentiable in grad (its own gradient is the gather again).
Tensor gather_backward(const Tensor& grad, IntArrayRef in_sizes, int64_t dim, const Tensor& index);

// The gradient of index_select(input of `in_sizes`, dim, index) (index int64, 1-D): grad's
// slices index-added into zeros. Differentiable in grad, as gather_backward. Embedding's
// backward too.
Tensor index_select_backward(const Tensor& grad, IntArrayRef in_sizes, int64_t dim,
                             const Tensor& index);

}  // namespace ember
