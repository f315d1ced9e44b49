// The activation modules: thin wrappers over the elementwise ops, printed as PyTorch prints them.
#include "ember/nn/modules/activation.h"

#include "ember/nn/functional.h"
#include "ember/ops.h"

namespace ember::nn {

ReLUImpl::ReLUImpl(const ReLUOptions& options_) : options(options_) {}
Tensor ReLUImpl::forward(Tensor input) {
  return options.inplace() ? input.relu_() : ember::relu(input);
}
void ReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::ReLU(";
  if (options.inplace()) stream << std::boolalpha << "inplace=" << options.inplace();
  stream << ")";
}

LeakyReLUImpl::LeakyReLUImpl(const LeakyReLUOptions& options_) : options(options_) {}
void LeakyReLUImpl::reset() {}
Tensor LeakyReLUImpl::forward(Tensor input) {
  return functional::leaky_relu(std::move(input), options);
}
void LeakyReLUImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::LeakyReLU(negative_slope=" << options.negative_slope();
  if (options.inplace()) stream << ", inplace=" << options.inplace();
  stream << ")";
}

ELUImpl::ELUImpl(const ELUOptions& options_) : options(options_) {}
void ELUImpl::reset() {}
Tensor ELUImpl::forward(Tensor input) {
  return functional::elu(std::move(input), options);
}
void ELUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::ELU(alpha=" << options.alpha();
  if (options.inplace()) stream << std::boolalpha << ", inplace=" << options.inplace();
  stream << ")";
}

SoftplusImpl::SoftplusImpl(const SoftplusOptions& options_) : options(options_) {}
void SoftplusImpl::reset() {}
Tensor SoftplusImpl::forward(const Tensor& input) {
  return functional::softplus(input, options);
}
void SoftplusImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Softplus(beta=" << options.beta() << ", threshold=" << options.threshold()
         << ")";
}

HardtanhImpl::HardtanhImpl(const HardtanhOptions& options_) : options(options_) {
  reset();
}
void HardtanhImpl::reset() {
  EMBER_CHECK(options.max_val() > options.min_val(), ValueError,
              "Hardtanh: max_val must be greater than min_val, got min_val=", options.min_val(),
              ", max_val=", options.max_val());
}
Tensor HardtanhImpl::forward(Tensor input) {
  return functional::hardtanh(std::move(input), options);
}
void HardtanhImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::Hardtanh(min_val=" << options.min_val()
         << ", max_val=" << options.max_val();
  if (options.inplace()) stream << ", inplace=" << options.inplace();
  stream << ")";
}

GELUImpl::GELUImpl(GELUOptions options_) : options(std::move(options_)) {
  EMBER_CHECK(options.approximate() == "none" || options.approximate() == "tanh", ValueError,
              "GELU: approximate must be 'none' or 'tanh', got '", options.approximate(), "'");
}
Tensor GELUImpl::forward(const Tensor& input) {
  return ember::gelu(input, options.approximate());
}
void GELUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::GELU()";  // libtorch 1.13 does not print `approximate`
}

Tensor SiLUImpl::forward(const Tensor& input) {
  return ember::silu(input);
}
void SiLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::SiLU()";
}

Tensor SigmoidImpl::forward(const Tensor& input) {
  return ember::sigmoid(input);
}
void SigmoidImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Sigmoid()";
}

Tensor TanhImpl::forward(const Tensor& input) {
  return ember::tanh(input);
}
void TanhImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Tanh()";
}

SoftmaxImpl::SoftmaxImpl(const SoftmaxOptions& options_) : options(options_) {}
Tensor SoftmaxImpl::forward(const Tensor& input) {
  return ember::softmax(input, options.dim());
}
void SoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Softmax(dim=" << options.dim() << ")";
}

LogSoftmaxImpl::LogSoftmaxImpl(const LogSoftmaxOptions& options_) : options(options_) {}
Tensor LogSoftmaxImpl::forward(const Tensor& input) {
  return ember::log_softmax(input, options.dim());
}
void LogSoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::LogSoftmax(dim=" << options.dim() << ")";
}

ReLU6Impl::ReLU6Impl(const ReLU6Options& options_) : options(options_) {}
void ReLU6Impl::reset() {}
Tensor ReLU6Impl::forward(Tensor input) {
  return functional::relu6(std::move(input), options);
}
void ReLU6Impl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::ReLU6(";
  if (options.inplace()) stream << std::boolalpha << "inplace=" << options.inplace();
  stream << ")";
}

SELUImpl::SELUImpl(const SELUOptions& options_) : options(options_) {}
void SELUImpl::reset() {}
Tensor SELUImpl::forward(Tensor input) {
  return functional::selu(std::move(input), options);
}
void SELUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::SELU(";
  if (options.inplace()) stream << std::boolalpha << "inplace=" << options.inplace();
  stream << ")";
}

CELUImpl::CELUImpl(const CELUOptions& options_) : options(options_) {}
void CELUImpl::reset() {}
Tensor CELUImpl::forward(Tensor input) {
  return functional::celu(std::move(input), options);
}
void CELUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::CELU(alpha=" << options.alpha();
  if (options.inplace()) stream << std::boolalpha << ", inplace=" << options.inplace();
  stream << ")";
}

HardshrinkImpl::HardshrinkImpl(const HardshrinkOptions& options_) : options(options_) {}
void HardshrinkImpl::reset() {}
Tensor HardshrinkImpl::forward(const Tensor& input) {
  return functional::hardshrink(input, options);
}
void HardshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Hardshrink(" << options.lambda() << ")";
}

SoftshrinkImpl::SoftshrinkImpl(const SoftshrinkOptions& options_) : options(options_) {}
void SoftshrinkImpl::reset() {}
Tensor SoftshrinkImpl::forward(const Tensor& input) {
  return functional::softshrink(input, options);
}
void SoftshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Softshrink(" << options.lambda() << ")";
}

GLUImpl::GLUImpl(const GLUOptions& options_) : options(options_) {}
void GLUImpl::reset() {}
Tensor GLUImpl::forward(const Tensor& input) {
  return functional::glu(input, options);
}
void GLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::GLU(dim=" << options.dim() << ")";
}

Tensor ThresholdImpl::forward(Tensor input) {
  return functional::threshold(std::move(input), options);
}
void ThresholdImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Threshold(threshold=" << options.threshold()
         << ", value=" << options.value();
  if (options.inplace()) stream << std::boolalpha << ", inplace=" << options.inplace();
  stream << ")";
}

Tensor Softmax2dImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, ValueError,
              "Softmax2d: expected input to be 3D or 4D, got ", input.dim(), "D instead");
  return ember::softmax(input, -3);
}
void Softmax2dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Softmax2d()";
}

Tensor SoftminImpl::forward(const Tensor& input) {
  return functional::softmin(input, options.dim());
}
void SoftminImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Softmin(dim=" << options.dim() << ")";
}

PReLUImpl::PReLUImpl(const PReLUOptions& options_) : options(options_) {
  reset();
}
void PReLUImpl::reset() {
  EMBER_CHECK(options.num_parameters() > 0, ValueError,
              "PReLU: num_parameters must be positive, got ", options.num_parameters());
  weight = register_parameter("weight", ember::empty({options.num_parameters()}));
  reset_parameters();
}
void PReLUImpl::reset_parameters() {
  NoGradGuard no_grad;
  weight.fill_(options.init());
}
Tensor PReLUImpl::forward(const Tensor& input) {
  return ember::prelu(input, weight);
}
void PReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::PReLU(num_parameters=" << options.num_parameters() << ")";
}

// The modules without options: the function and the name.
#define EMBER_ACTIVATION_BODY(Name, function)                 \
  Tensor Name##Impl::forward(const Tensor& input) {           \
    return function(input);                                   \
  }                                                           \
  void Name##Impl::pretty_print(std::ostream& stream) const { \
    stream << "ember::nn::" #Name "()";                       \
  }
EMBER_ACTIVATION_BODY(Mish, ember::mish)
EMBER_ACTIVATION_BODY(Hardswish, ember::hardswish)
EMBER_ACTIVATION_BODY(Hardsigmoid, ember::hardsigmoid)
EMBER_ACTIVATION_BODY(Softsign, ember::softsign)
EMBER_ACTIVATION_BODY(Tanhshrink, ember::tanhshrink)
EMBER_ACTIVATION_BODY(LogSigmoid, ember::log_sigmoid)
#undef EMBER_ACTIVATION_BODY

}  // namespace ember::nn
