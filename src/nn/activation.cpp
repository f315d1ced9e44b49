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

}  // namespace ember::nn
