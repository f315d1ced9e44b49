// The activations that draw random numbers: rrelu (and RReLU) and gumbel_softmax. Both are
// compositions of elementwise ops over draws from the default Philox generator, so they run on
// every device and get their gradients from those ops.
#include "ember/nn/functional.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"

namespace ember {

Tensor rrelu(const Tensor& input, double lower, double upper, bool training) {
  EMBER_CHECK(input.is_floating_point(), TypeError, "rrelu(): expected a floating input, got ",
              to_string(input.dtype()));
  EMBER_CHECK(lower <= upper, ValueError,
              "Lower bound should be less than or equal to the upper bound");
  if (!training) return leaky_relu(input, (lower + upper) / 2);
  // Each element at or below zero gets its own slope (PyTorch's `input <= 0` test); the draw is
  // made for every element so that its count does not depend on the data.
  Tensor slopes;
  {
    NoGradGuard no_grad;
    slopes = empty_like(input);
    slopes.uniform_(lower, upper);
  }
  Tensor noise = where(input.le(0), slopes, 1.0);
  return input * noise;
}

Tensor rrelu_(const Tensor& input, double lower, double upper, bool training) {
  Tensor result = rrelu(input, lower, upper, training);
  input.copy_(result);
  return input;
}

Tensor gumbel_softmax(const Tensor& logits, double tau, bool hard, int64_t dim) {
  EMBER_CHECK(logits.is_floating_point(), TypeError,
              "gumbel_softmax(): expected floating logits, got ", to_string(logits.dtype()));
  Tensor gumbels;
  {
    NoGradGuard no_grad;
    // -log(E) for E ~ Exponential(1), E = -log(1 - U) with U ~ U[0, 1).
    Tensor u = empty_like(logits);
    u.uniform_(0.0, 1.0);
    gumbels = -log(-log1p(-u));
  }
  Tensor y_soft = softmax((logits + gumbels) / tau, dim);
  if (!hard) return y_soft;
  Tensor index = std::get<1>(max(y_soft, dim, /*keepdim=*/true));
  Tensor y_hard = zeros_like(logits).scatter_add(dim, index, ones_like(index, y_soft.dtype()));
  // The one-hot forward with the soft sample's gradient (straight-through).
  return y_hard - y_soft.detach() + y_soft;
}

namespace nn {

RReLUImpl::RReLUImpl(const RReLUOptions& options_) : options(options_) {}
void RReLUImpl::reset() {}
Tensor RReLUImpl::forward(Tensor input) {
  return functional::rrelu(std::move(input), functional::RReLUFuncOptions()
                                                 .lower(options.lower())
                                                 .upper(options.upper())
                                                 .training(is_training())
                                                 .inplace(options.inplace()));
}
void RReLUImpl::pretty_print(std::ostream& stream) const {
  // As libtorch, boolalpha is set only when inplace is printed.
  stream << "ember::nn::RReLU(lower=" << options.lower() << ", upper=" << options.upper();
  if (options.inplace()) stream << std::boolalpha << ", inplace=" << options.inplace();
  stream << ")";
}

}  // namespace nn
}  // namespace ember
