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
#include "ember/nn/options/distance.h"
#include "ember/nn/options/dropout.h"
#include "ember/nn/options/embedding.h"
#include "ember/nn/options/linear.h"
#include "ember/nn/options/loss.h"
#include "ember/nn/options/normalization.h"
#include "ember/nn/options/padding.h"
#include "ember/nn/options/pooling.h"
#include "ember/nn/options/upsampling.h"
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
namespace detail {
// The inplace option of the activations: the result is written back into the input.
inline Tensor maybe_inplace(Tensor& input, const Tensor& result, bool inplace) {
  return inplace ? input.copy_(result) : result;
}
}  // namespace detail

inline Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options = {}) {
  return detail::maybe_inplace(input, ember::leaky_relu(input, options.negative_slope()),
                               options.inplace());
}
inline Tensor elu(Tensor input, const ELUFuncOptions& options = {}) {
  return detail::maybe_inplace(input, ember::elu(input, options.alpha()), options.inplace());
}
inline Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {}) {
  return ember::softplus(input, options.beta(), options.threshold());
}
inline Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options = {}) {
  return detail::maybe_inplace(input, ember::hardtanh(input, options.min_val(), options.max_val()),
                               options.inplace());
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

// input / max(||input||_p over dim, eps).
EMBER_API Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});

inline Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  return ember::pad(input, options.pad(), enum_name(options.mode()),
                    options.value() != 0.0 ? std::optional<double>(options.value()) : std::nullopt);
}

// Resizes the spatial dims of [N, C, W] / [N, C, H, W] / [N, C, D, H, W] inputs: kNearest,
// kNearestExact, kLinear (3D), kBilinear (4D), kTrilinear (5D).
EMBER_API Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});

inline Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                                const CosineSimilarityFuncOptions& options = {}) {
  return ember::cosine_similarity(x1, x2, options.dim(), options.eps());
}

inline Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1) {
  return ember::one_hot(tensor, num_classes);
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

inline Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                                   const BinaryCrossEntropyFuncOptions& options = {}) {
  return ember::binary_cross_entropy(input, target, options.weight(),
                                     reduction_code(options.reduction()));
}
// As libtorch 1.13: beta is this function's own argument; options.beta() is not read here.
inline Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                             const SmoothL1LossFuncOptions& options = {}, double beta = 1.0) {
  return ember::smooth_l1_loss(input, target, reduction_code(options.reduction()), beta);
}
inline Tensor kl_div(const Tensor& input, const Tensor& target,
                     const KLDivFuncOptions& options = {}) {
  if (std::holds_alternative<enumtype::kBatchMean>(options.reduction())) {
    Tensor sum = ember::kl_div(input, target, Reduction::Sum, options.log_target());
    return input.dim() == 0 ? sum : sum / static_cast<double>(input.size(0));
  }
  const int64_t code =
      std::holds_alternative<enumtype::kNone>(options.reduction())  ? Reduction::None
      : std::holds_alternative<enumtype::kSum>(options.reduction()) ? Reduction::Sum
                                                                    : Reduction::Mean;
  return ember::kl_div(input, target, code, options.log_target());
}

}  // namespace functional
}  // namespace ember::nn
