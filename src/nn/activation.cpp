// The activation modules: thin wrappers over the elementwise ops, printed as PyTorch prints them.
#include "ember/nn/modules/activation.h"

#include "ember/ops.h"

namespace ember::nn {

ReLUImpl::ReLUImpl(const ReLUOptions& options_) : options(options_) {}
Tensor ReLUImpl::forward(Tensor input) {
  return options.inplace() ? input.relu_() : ember::relu(input);
}
void ReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ReLU(" << (options.inplace() ? "inplace=true" : "") << ")";
}

GELUImpl::GELUImpl(GELUOptions options_) : options(std::move(options_)) {
  EMBER_CHECK(options.approximate() == "none" || options.approximate() == "tanh", ValueError,
              "GELU: approximate must be 'none' or 'tanh', got '", options.approximate(), "'");
}
Tensor GELUImpl::forward(const Tensor& input) {
  return ember::gelu(input, options.approximate());
}
void GELUImpl::pretty_print(std::ostream& stream) const {
  stream << "GELU(";
  if (options.approximate() != "none") stream << "approximate='" << options.approximate() << "'";
  stream << ")";
}

Tensor SiLUImpl::forward(const Tensor& input) {
  return ember::silu(input);
}
void SiLUImpl::pretty_print(std::ostream& stream) const {
  stream << "SiLU()";
}

Tensor SigmoidImpl::forward(const Tensor& input) {
  return ember::sigmoid(input);
}
void SigmoidImpl::pretty_print(std::ostream& stream) const {
  stream << "Sigmoid()";
}

Tensor TanhImpl::forward(const Tensor& input) {
  return ember::tanh(input);
}
void TanhImpl::pretty_print(std::ostream& stream) const {
  stream << "Tanh()";
}

SoftmaxImpl::SoftmaxImpl(const SoftmaxOptions& options_) : options(options_) {}
Tensor SoftmaxImpl::forward(const Tensor& input) {
  return ember::softmax(input, options.dim());
}
void SoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "Softmax(dim=" << options.dim() << ")";
}

LogSoftmaxImpl::LogSoftmaxImpl(const LogSoftmaxOptions& options_) : options(options_) {}
Tensor LogSoftmaxImpl::forward(const Tensor& input) {
  return ember::log_softmax(input, options.dim());
}
void LogSoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "LogSoftmax(dim=" << options.dim() << ")";
}

}  // namespace ember::nn
