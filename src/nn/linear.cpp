// linear, Linear, Flatten, Unflatten and Identity.
#include "ember/nn/modules/linear.h"

#include <cmath>

#include "core/autocast_hook.h"
#include "ember/nn/init.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "nn/describe.h"

namespace ember {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::linear, input);
    return linear(ac.cast(input), ac.cast(weight), ac.cast(bias));
  }
  EMBER_CHECK(weight.dim() == 2, ValueError, "linear(): weight must be 2-D [out, in], got shape ",
              weight.sizes());
  EMBER_CHECK(input.dim() >= 1 && input.size(-1) == weight.size(1), ValueError,
              "linear(): input of shape ", input.sizes(), " and weight of shape ", weight.sizes(),
              " cannot be multiplied (mat1 and mat2 shapes cannot be multiplied)");
  // 2-D input with bias: one GEMM that starts from the broadcast bias.
  if (input.dim() == 2 && bias.defined()) return addmm(bias, input, weight.t());
  Tensor out = matmul(input, weight.t());
  return bias.defined() ? out + bias : out;
}

namespace nn {

LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) {
  reset();
}

void LinearImpl::reset() {
  EMBER_CHECK(options.in_features() >= 0 && options.out_features() >= 0, ValueError,
              "Linear: in_features and out_features must be non-negative, got ",
              options.in_features(), " and ", options.out_features());
  weight = register_parameter("weight", empty({options.out_features(), options.in_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(),
                            options.bias());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const double fan_in = static_cast<double>(options.in_features());
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(fan_in) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor LinearImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 1 && input.size(-1) == options.in_features(), ValueError,
              detail::describe(*this), ": expected input with last dimension ",
              options.in_features(), ", got shape ", input.sizes());
  return ember::linear(input, weight, bias);
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

FlattenImpl::FlattenImpl(const FlattenOptions& options_) : options(options_) {}

Tensor FlattenImpl::forward(const Tensor& input) {
  return input.flatten(options.start_dim(), options.end_dim());
}

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Flatten(start_dim=" << options.start_dim()
         << ", end_dim=" << options.end_dim() << ")";
}

Tensor UnflattenImpl::forward(const Tensor& input) {
  return input.unflatten(options.dim(), options.sizes());
}

void UnflattenImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Unflatten(dim=" << options.dim() << ", unflattened_size={";
  for (size_t i = 0; i < options.sizes().size(); ++i) {
    stream << (i ? ", " : "") << options.sizes()[i];
  }
  stream << "})";
}

void IdentityImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Identity()";
}

}  // namespace nn
}  // namespace ember
