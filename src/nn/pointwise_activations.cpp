// leaky_relu, elu, softplus and hardtanh, composed from elementwise ops (where, clamp, exp,
// log1p), so every device runs them and autograd differentiates them. The exponential branches
// read a clamped input so that the branch `where` discards can never overflow to inf and turn
// the gradient into 0 * inf = NaN.
#include "ember/nn/ops.h"
#include "ember/ops.h"

namespace ember {

Tensor leaky_relu(const Tensor& input, double negative_slope) {
  return where(input > 0, input, input * negative_slope);
}

Tensor elu(const Tensor& input, double alpha) {
  Tensor negative_part = (exp(input.clamp_max(0)) - 1) * alpha;
  return where(input > 0, input, negative_part);
}

Tensor softplus(const Tensor& input, double beta, double threshold) {
  Tensor scaled = input * beta;
  Tensor smooth = log1p(exp(scaled.clamp_max(threshold))) / beta;
  return where(scaled > threshold, input, smooth);
}

Tensor hardtanh(const Tensor& input, double min_val, double max_val) {
  EMBER_CHECK(min_val <= max_val, ValueError, "hardtanh: min_val (", min_val,
              ") cannot be greater than max_val (", max_val, ")");
  return clamp(input, Scalar(min_val), Scalar(max_val));
}

}  // namespace ember
