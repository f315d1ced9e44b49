#pragma once
// The one front end of the row_norm families (core/backend.h), which layer_norm, group_norm and
// instance_norm call: checks, the 16-bit rule, the backend call and the gradient.
#include "ember/tensor.h"
#include "kernel_math/row_norm.h"

namespace ember::detail {

// What normalize_rows returns: the output in the input's shape and dtype, and each row's mean
// and 1/std ([rows], float32 for 16-bit input), which no gradient flows through.
struct RowNormResult {
  Tensor out, mean, rstd;
};

// Normalises `input` (any shape of g.rows * g.row_size elements, rows contiguous in its
// row-major order) row by row, scaled by `weight` and shifted by `bias` (each of g.weight_count()
// elements, or undefined) as kernel_math/row_norm.h lays them out. `op` names the caller in errors
// and in the gradient's node.
RowNormResult normalize_rows(const char* op, const char* node_name, const Tensor& input,
                             const RowNormGeometry& g, const Tensor& weight, const Tensor& bias);

}  // namespace ember::detail
