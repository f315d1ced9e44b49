// The pointwise activations (leaky_relu, elu, softplus, hardtanh, relu6, hardswish, hardsigmoid,
// mish, selu, celu, softsign, tanhshrink, hardshrink, softshrink, log_sigmoid, threshold, glu,
// prelu), composed from elementwise ops (where, clamp, exp, log1p), so every device runs them and
// autograd differentiates them. The exponential branches
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
  // PyTorch's gradient is 1 strictly inside (min_val, max_val) and 0 on the bounds (clamp's
  // includes them), so the clamped values enter as constants.
  return where((input > min_val) & (input < max_val), input,
               clamp(input.detach(), Scalar(min_val), Scalar(max_val)));
}

Tensor relu6(const Tensor& input) {
  return hardtanh(input, 0.0, 6.0);
}

Tensor hardsigmoid(const Tensor& input) {
  return clamp(input + 3, Scalar(0.0), Scalar(6.0)) / 6;
}

Tensor hardswish(const Tensor& input) {
  return input * hardsigmoid(input);
}

Tensor mish(const Tensor& input) {
  return input * tanh(softplus(input));
}

Tensor selu(const Tensor& input) {
  // The constants of Klambauer et al. (2017), as PyTorch writes them.
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  return elu(input, kAlpha) * kScale;
}

Tensor celu(const Tensor& input, double alpha) {
  EMBER_CHECK(alpha != 0, ValueError, "celu(): alpha cannot be 0");
  return where(input > 0, input, (exp((input / alpha).clamp_max(0)) - 1) * alpha);
}

Tensor softsign(const Tensor& input) {
  return input / (input.abs() + 1);
}

Tensor tanhshrink(const Tensor& input) {
  return input - tanh(input);
}

Tensor hardshrink(const Tensor& input, double lambd) {
  return where(input.abs() > lambd, input, zeros_like(input));
}

Tensor softshrink(const Tensor& input, double lambd) {
  EMBER_CHECK(lambd >= 0, ValueError, "lambda must be greater or equal to 0, but found to be ",
              lambd, ".");
  return where(input > lambd, input - lambd,
               where(input < -lambd, input + lambd, zeros_like(input)));
}

Tensor log_sigmoid(const Tensor& input) {
  // softplus keeps the exponential from overflowing and has the gradient sigmoid(-x) everywhere,
  // 1/2 at 0 included.
  return -softplus(-input);
}

Tensor threshold(const Tensor& input, double threshold, double value) {
  return where(input > threshold, input, full_like(input, value));
}

Tensor glu(const Tensor& input, int64_t dim) {
  EMBER_CHECK(input.dim() > 0, ValueError,
              "glu does not support scalars because halving size "
              "must be even");
  const int64_t d = dim < 0 ? dim + input.dim() : dim;
  EMBER_CHECK(d >= 0 && d < input.dim(), IndexError,
              "Dimension out of range (expected to be in "
              "range of [",
              -input.dim(), ", ", input.dim() - 1, "], but got ", dim, ")");
  const int64_t n = input.size(d);
  EMBER_CHECK(n % 2 == 0, ValueError, "Halving dimension must be even, but dimension ", d,
              " is size ", n);
  return input.narrow(d, 0, n / 2) * sigmoid(input.narrow(d, n / 2, n / 2));
}

Tensor prelu(const Tensor& input, const Tensor& weight) {
  EMBER_CHECK(weight.dim() <= 1, ValueError,
              "prelu: Expected `weight` to be a scalar or 1D "
              "tensor, but got: ndim = ",
              weight.dim());
  const int64_t channels = input.dim() >= 2 ? input.size(1) : 1;
  EMBER_CHECK(weight.numel() == 1 || weight.numel() == channels, ValueError,
              "Mismatch of parameter numbers and input channel size. Found parameter numbers = ",
              weight.numel(), " and channel size = ", channels, ".");
  Tensor slope = weight;
  if (weight.numel() > 1) {
    DimVector shape(input.dim(), 1);
    shape[1] = channels;
    slope = weight.reshape(shape);
  } else {
    slope = weight.reshape({});
  }
  return where(input > 0, input, input * slope);
}

}  // namespace ember
