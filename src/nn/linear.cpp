// linear, bilinear, Linear, Bilinear, Flatten, Unflatten and Identity.
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
  // With bias: one GEMM that starts from the broadcast bias (no separate pass to add it). A
  // contiguous input of more dims is that GEMM over its rows, as PyTorch's linear does.
  if (bias.defined() && input.dim() == 2) return addmm(bias, input, weight.t());
  if (bias.defined() && input.dim() > 2 && input.is_contiguous()) {
    DimVector sizes(input.sizes());
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < sizes.size(); ++d) rows *= sizes[d];
    sizes.back() = weight.size(0);
    return addmm(bias, input.view({rows, input.size(-1)}), weight.t()).view(sizes);
  }
  Tensor out = matmul(input, weight.t());
  return bias.defined() ? out + bias : out;
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const Tensor& bias) {
  EMBER_CHECK(input1.dim() == input2.dim(), ValueError,
              "bilinear(): input dimensions do not match: got ", input1.dim(), " and ",
              input2.dim());
  EMBER_CHECK(input1.dim() >= 1, ValueError, "bilinear(): expected inputs of at least 1 dim");
  EMBER_CHECK(weight.dim() == 3, ValueError,
              "bilinear(): weight must be 3-D [out, in1, in2], got shape ", weight.sizes());
  const int64_t O = weight.size(0), I = weight.size(1), J = weight.size(2);
  EMBER_CHECK(input1.size(-1) == I, ValueError,
              "bilinear(): input1 size does not match weight "
              "size: got ",
              input1.size(-1), " but expected ", I);
  EMBER_CHECK(input2.size(-1) == J, ValueError,
              "bilinear(): input2 size does not match weight "
              "size: got ",
              input2.size(-1), " but expected ", J);
  for (int64_t d = 0; d + 1 < input1.dim(); ++d) {
    EMBER_CHECK(input1.size(d) == input2.size(d), ValueError,
                "bilinear(): input batch dimensions do not match: got ", input1.sizes(), " and ",
                input2.sizes());
  }
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == O), ValueError,
              "bilinear(): bias must have shape [", O, "], got ", bias.sizes());
  // x1 @ W as one GEMM ([B, I] @ [I, O * J]), then each output's dot product with x2.
  const Tensor x1 = input1.reshape({-1, I}), x2 = input2.reshape({-1, J});
  Tensor mixed = x1.matmul(weight.permute({1, 0, 2}).reshape({I, O * J})).view({-1, O, J});
  Tensor out = (mixed * x2.unsqueeze(1)).sum({2});
  if (bias.defined()) out = out + bias;
  std::vector<int64_t> shape(input1.sizes().begin(), input1.sizes().end() - 1);
  shape.push_back(O);
  return out.reshape(shape);
}

namespace nn {

BilinearImpl::BilinearImpl(const BilinearOptions& options_) : options(options_) {
  reset();
}

void BilinearImpl::reset() {
  weight = register_parameter(
      "weight",
      ember::empty({options.out_features(), options.in1_features(), options.in2_features()}));
  bias = register_parameter(
      "bias", options.bias() ? ember::empty({options.out_features()}) : Tensor(), options.bias());
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  // PyTorch's: U(-1/sqrt(in1_features), 1/sqrt(in1_features)) for the weight and the bias.
  const double bound = 1.0 / std::sqrt(static_cast<double>(weight.size(1)));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return ember::bilinear(input1, input2, weight, bias);
}

void BilinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::Bilinear(in1_features=" << options.in1_features()
         << ", in2_features=" << options.in2_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

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
