#pragma once
// ember::nn::functional: libtorch's F:: API (namespace F = ember::nn::functional;), taking the
// same *FuncOptions objects, e.g.
//   F::cross_entropy(x, y, F::CrossEntropyFuncOptions().ignore_index(-100).label_smoothing(0.1));
#include <variant>

#include "ember/autograd.h"
#include "ember/nn/enum.h"
#include "ember/nn/ops.h"
#include "ember/nn/options/activation.h"
#include "ember/nn/options/conv.h"
#include "ember/nn/options/dropout.h"
#include "ember/nn/options/embedding.h"
#include "ember/nn/options/linear.h"
#include "ember/nn/options/loss.h"
#include "ember/nn/options/normalization.h"
#include "ember/nn/options/pooling.h"
#include "ember/ops.h"

namespace ember::nn {

// The explicit (top, left) padding a Conv2d padding option means for this kernel/dilation;
// kSame requires stride 1 and pads the odd extra element on the right as PyTorch does.
EMBER_API Tensor conv2d_with_padding(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                     ExpandingArray<2> stride, const conv_padding_t& padding,
                                     ExpandingArray<2> dilation, int64_t groups);

namespace functional {

inline Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {}) {
  return ember::linear(input, weight, bias);
}

inline Tensor conv2d(const Tensor& input, const Tensor& weight,
                     const Conv2dFuncOptions& options = {}) {
  return conv2d_with_padding(input, weight, options.bias(), options.stride(), options.padding(),
                             options.dilation(), options.groups());
}

inline Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options) {
  return ember::max_pool2d(input, options.kernel_size(), options.stride(), options.padding(),
                           options.dilation(), options.ceil_mode());
}
inline std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                          const MaxPool2dFuncOptions& options) {
  return ember::max_pool2d_with_indices(input, options.kernel_size(), options.stride(),
                                        options.padding(), options.dilation(), options.ceil_mode());
}
inline Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options) {
  return ember::avg_pool2d(input, options.kernel_size(), options.stride(), options.padding(),
                           options.ceil_mode(), options.count_include_pad(),
                           options.divisor_override());
}
inline Tensor adaptive_avg_pool2d(const Tensor& input,
                                  const AdaptiveAvgPool2dFuncOptions& options) {
  return ember::adaptive_avg_pool2d(input, options.output_size());
}

inline Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                         const BatchNormFuncOptions& options = {}) {
  return ember::batch_norm(input, options.weight(), options.bias(), running_mean, running_var,
                           options.training(), options.momentum().value_or(0.1), options.eps());
}
inline Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return ember::layer_norm(input, options.normalized_shape(), options.weight(), options.bias(),
                           options.eps());
}

inline Tensor dropout(Tensor input, const DropoutFuncOptions& options = {}) {
  Tensor out = ember::dropout(input, options.p(), options.training());
  if (options.inplace() && !out.is_same(input)) {
    NoGradGuard no_grad;
    input.copy_(out);
    return input;
  }
  return out;
}

inline Tensor embedding(const Tensor& input, const Tensor& weight,
                        const EmbeddingFuncOptions& options = {}) {
  return ember::embedding(weight, input, options.padding_idx().value_or(-1));
}

inline Tensor relu(Tensor input, const ReLUFuncOptions& options = {}) {
  return options.inplace() ? input.relu_() : ember::relu(input);
}
inline Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {}) {
  return ember::gelu(input, options.approximate());
}
inline Tensor silu(const Tensor& input) {
  return ember::silu(input);
}
inline Tensor sigmoid(const Tensor& input) {
  return ember::sigmoid(input);
}
inline Tensor tanh(const Tensor& input) {
  return ember::tanh(input);
}
inline Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return ember::softmax(input, options.dim(), options.dtype());
}
inline Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return ember::log_softmax(input, options.dim(), options.dtype());
}

inline Tensor cross_entropy(const Tensor& input, const Tensor& target,
                            const CrossEntropyFuncOptions& options = {}) {
  return ember::cross_entropy_loss(input, target, options.weight(),
                                   reduction_code(options.reduction()), options.ignore_index(),
                                   options.label_smoothing());
}
inline Tensor nll_loss(const Tensor& input, const Tensor& target,
                       const NLLLossFuncOptions& options = {}) {
  return ember::nll_loss(input, target, options.weight(), reduction_code(options.reduction()),
                         options.ignore_index());
}
inline Tensor mse_loss(const Tensor& input, const Tensor& target,
                       const MSELossFuncOptions& options = {}) {
  return ember::mse_loss(input, target, reduction_code(options.reduction()));
}
inline Tensor l1_loss(const Tensor& input, const Tensor& target,
                      const L1LossFuncOptions& options = {}) {
  return ember::l1_loss(input, target, reduction_code(options.reduction()));
}
inline Tensor binary_cross_entropy_with_logits(
    const Tensor& input, const Tensor& target,
    const BinaryCrossEntropyWithLogitsFuncOptions& options = {}) {
  return ember::binary_cross_entropy_with_logits(
      input, target, options.weight(), options.pos_weight(), reduction_code(options.reduction()));
}

}  // namespace functional
}  // namespace ember::nn
