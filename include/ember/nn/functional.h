#pragma once
// ember::nn::functional: libtorch's F:: API (namespace F = ember::nn::functional;), taking the
// same *FuncOptions objects, e.g.
//   F::cross_entropy(x, y, F::CrossEntropyFuncOptions().ignore_index(-100).label_smoothing(0.1));
#include <tuple>
#include <variant>

#include "ember/autograd.h"
#include "ember/nn/attention.h"
#include "ember/nn/enum.h"
#include "ember/nn/ops.h"
#include "ember/nn/options/activation.h"
#include "ember/nn/options/conv.h"
#include "ember/nn/options/distance.h"
#include "ember/nn/options/dropout.h"
#include "ember/nn/options/embedding.h"
#include "ember/nn/options/fold.h"
#include "ember/nn/options/linear.h"
#include "ember/nn/options/loss.h"
#include "ember/nn/options/normalization.h"
#include "ember/nn/options/padding.h"
#include "ember/nn/options/pixelshuffle.h"
#include "ember/nn/options/pooling.h"
#include "ember/nn/options/transformer.h"
#include "ember/nn/options/upsampling.h"
#include "ember/nn/options/vision.h"
#include "ember/ops.h"

namespace ember::nn {

// The explicit (top, left) padding a Conv2d padding option means for this kernel/dilation;
// kSame requires stride 1 and pads the odd extra element on the right as PyTorch does.
EMBER_API Tensor conv2d_with_padding(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                     ExpandingArray<2> stride, const conv_padding_t& padding,
                                     ExpandingArray<2> dilation, int64_t groups);
// The same for Conv1d's padding option.
EMBER_API Tensor conv1d_with_padding(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                     ExpandingArray<1> stride, const conv_padding_nd_t<1>& padding,
                                     ExpandingArray<1> dilation, int64_t groups);
// The same for Conv3d's padding option.
EMBER_API Tensor conv3d_with_padding(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                     ExpandingArray<3> stride, const conv_padding_nd_t<3>& padding,
                                     ExpandingArray<3> dilation, int64_t groups);

namespace functional {

// PyTorch 2.x's F.scaled_dot_product_attention (ember/nn/attention.h).
inline Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key,
                                           const Tensor& value, const Tensor& attn_mask = {},
                                           double dropout_p = 0.0, bool is_causal = false,
                                           std::optional<double> scale = std::nullopt,
                                           bool enable_gqa = false) {
  return ember::scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                             scale, enable_gqa);
}

// PyTorch 1.13's F.multi_head_attention_forward (src/nn/multihead_attention.cpp): query [L, N, E]
// (or [L, E] unbatched), key [S, N, Ek], value [S, N, Ev]; returns the output [L, N, E] and, with
// need_weights, the attention weights [N, L, S] (averaged over the heads) or [N, num_heads, L, S];
// else an undefined tensor. Without need_weights the attention is
// ember::scaled_dot_product_attention (the fused kernel when it accepts the call).
EMBER_API std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const MultiheadAttentionForwardFuncOptions& options);

inline Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {}) {
  return ember::linear(input, weight, bias);
}

inline Tensor conv2d(const Tensor& input, const Tensor& weight,
                     const Conv2dFuncOptions& options = {}) {
  return conv2d_with_padding(input, weight, options.bias(), options.stride(), options.padding(),
                             options.dilation(), options.groups());
}

inline Tensor conv1d(const Tensor& input, const Tensor& weight,
                     const Conv1dFuncOptions& options = {}) {
  return conv1d_with_padding(input, weight, options.bias(), options.stride(), options.padding(),
                             options.dilation(), options.groups());
}

inline Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                               const ConvTranspose1dFuncOptions& options = {}) {
  return ember::conv_transpose1d(input, weight, options.bias(), options.stride(), options.padding(),
                                 options.output_padding(), options.groups(), options.dilation());
}

inline Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                               const ConvTranspose2dFuncOptions& options = {}) {
  return ember::conv_transpose2d(input, weight, options.bias(), options.stride(), options.padding(),
                                 options.output_padding(), options.groups(), options.dilation());
}
inline Tensor conv3d(const Tensor& input, const Tensor& weight,
                     const Conv3dFuncOptions& options = {}) {
  return conv3d_with_padding(input, weight, options.bias(), options.stride(), options.padding(),
                             options.dilation(), options.groups());
}
inline Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                               const ConvTranspose3dFuncOptions& options = {}) {
  return ember::conv_transpose3d(input, weight, options.bias(), options.stride(), options.padding(),
                                 options.output_padding(), options.groups(), options.dilation());
}

// Columns [N, C * kh * kw, L] summed into [N, C, output_size] (unbatched: [C * kh * kw, L]).
EMBER_API Tensor fold(const Tensor& input, const FoldFuncOptions& options);
// The sliding windows of [N, C, H, W] (or [C, H, W]) as columns [N, C * kh * kw, L].
EMBER_API Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);

inline Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options) {
  return ember::max_pool1d(input, options.kernel_size(), options.stride(), options.padding(),
                           options.dilation(), options.ceil_mode());
}
inline std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                          const MaxPool1dFuncOptions& options) {
  return ember::max_pool1d_with_indices(input, options.kernel_size(), options.stride(),
                                        options.padding(), options.dilation(), options.ceil_mode());
}
inline Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options) {
  return ember::avg_pool1d(input, options.kernel_size(), options.stride(), options.padding(),
                           options.ceil_mode(), options.count_include_pad());
}
inline Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& options) {
  return ember::lp_pool1d(input, options.norm_type(), options.kernel_size(), options.stride(),
                          options.ceil_mode());
}
inline Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& options) {
  return ember::lp_pool2d(input, options.norm_type(), options.kernel_size(), options.stride(),
                          options.ceil_mode());
}
inline Tensor adaptive_avg_pool1d(const Tensor& input,
                                  const AdaptiveAvgPool1dFuncOptions& options) {
  return ember::adaptive_avg_pool1d(input, options.output_size());
}
inline Tensor adaptive_max_pool1d(const Tensor& input,
                                  const AdaptiveMaxPool1dFuncOptions& options) {
  return std::get<0>(ember::adaptive_max_pool1d(input, options.output_size()));
}
inline Tensor adaptive_max_pool2d(const Tensor& input,
                                  const AdaptiveMaxPool2dFuncOptions& options) {
  return std::get<0>(ember::adaptive_max_pool2d(input, options.output_size()));
}
inline std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(
    const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  return ember::adaptive_max_pool2d(input, options.output_size());
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
inline std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(
    const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options) {
  return ember::adaptive_max_pool1d(input, options.output_size());
}

// Fractional max pooling: the output and the flat position of each maximum in its plane.
EMBER_API std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const Tensor& input, const FractionalMaxPool3dFuncOptions& options);
inline Tensor fractional_max_pool2d(const Tensor& input,
                                    const FractionalMaxPool2dFuncOptions& options) {
  return std::get<0>(fractional_max_pool2d_with_indices(input, options));
}
inline Tensor fractional_max_pool3d(const Tensor& input,
                                    const FractionalMaxPool3dFuncOptions& options) {
  return std::get<0>(fractional_max_pool3d_with_indices(input, options));
}

inline Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options) {
  return ember::max_pool3d(input, options.kernel_size(), options.stride(), options.padding(),
                           options.dilation(), options.ceil_mode());
}
inline std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input,
                                                          const MaxPool3dFuncOptions& options) {
  return ember::max_pool3d_with_indices(input, options.kernel_size(), options.stride(),
                                        options.padding(), options.dilation(), options.ceil_mode());
}
inline Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options) {
  return ember::avg_pool3d(input, options.kernel_size(), options.stride(), options.padding(),
                           options.ceil_mode(), options.count_include_pad(),
                           options.divisor_override());
}
inline Tensor adaptive_avg_pool3d(const Tensor& input,
                                  const AdaptiveAvgPool3dFuncOptions& options) {
  return ember::adaptive_avg_pool3d(input, options.output_size());
}
inline Tensor adaptive_max_pool3d(const Tensor& input,
                                  const AdaptiveMaxPool3dFuncOptions& options) {
  return std::get<0>(ember::adaptive_max_pool3d(input, options.output_size()));
}
inline std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(
    const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options) {
  return ember::adaptive_max_pool3d(input, options.output_size());
}

// Max unpooling: the output size is options.output_size (spatial sizes, or with N and C in
// front) or, without one, (in - 1) * stride - 2 * padding + kernel_size per dim.
EMBER_API Tensor max_unpool1d(const Tensor& input, const Tensor& indices,
                              const MaxUnpool1dFuncOptions& options);
EMBER_API Tensor max_unpool2d(const Tensor& input, const Tensor& indices,
                              const MaxUnpool2dFuncOptions& options);
EMBER_API Tensor max_unpool3d(const Tensor& input, const Tensor& indices,
                              const MaxUnpool3dFuncOptions& options);

inline Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                         const BatchNormFuncOptions& options = {}) {
  return ember::batch_norm(input, options.weight(), options.bias(), running_mean, running_var,
                           options.training(), options.momentum().value_or(0.1), options.eps());
}
EMBER_API Tensor local_response_norm(const Tensor& input,
                                     const LocalResponseNormFuncOptions& options);

inline Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                       const Tensor& bias = {}) {
  return ember::bilinear(input1, input2, weight, bias);
}

inline Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options) {
  return ember::group_norm(input, options.num_groups(), options.weight(), options.bias(),
                           options.eps());
}

inline Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {}) {
  return ember::instance_norm(input, options.weight(), options.bias(), options.running_mean(),
                              options.running_var(), options.use_input_stats(), options.momentum(),
                              options.eps());
}

inline Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return ember::layer_norm(input, options.normalized_shape(), options.weight(), options.bias(),
                           options.eps());
}

namespace detail {
// The inplace option of the dropouts: the result written back into the input, untracked.
inline Tensor dropout_inplace(Tensor& input, const Tensor& out, bool inplace) {
  if (inplace && !out.is_same(input)) {
    NoGradGuard no_grad;
    input.copy_(out);
    return input;
  }
  return out;
}
}  // namespace detail

inline Tensor dropout(Tensor input, const DropoutFuncOptions& options = {}) {
  return detail::dropout_inplace(input, ember::dropout(input, options.p(), options.training()),
                                 options.inplace());
}
inline Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {}) {
  return detail::dropout_inplace(
      input, ember::feature_dropout(input, options.p(), options.training()), options.inplace());
}
inline Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options = {}) {
  const bool unbatched = input.dim() == 4;
  Tensor out = ember::feature_dropout(unbatched ? input.unsqueeze(0) : input, options.p(),
                                      options.training());
  return detail::dropout_inplace(input, unbatched ? out.squeeze(0) : out, options.inplace());
}
inline Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options = {}) {
  return detail::dropout_inplace(
      input, ember::alpha_dropout(input, options.p(), options.training()), options.inplace());
}
inline Tensor feature_alpha_dropout(Tensor input,
                                    const FeatureAlphaDropoutFuncOptions& options = {}) {
  return detail::dropout_inplace(
      input, ember::feature_alpha_dropout(input, options.p(), options.training()),
      options.inplace());
}

// PyTorch's checks of padding_idx (negative counts from the end), then with max_norm the rows
// named by input renormalised in place (src/nn/embedding.cpp).
EMBER_API Tensor embedding(const Tensor& input, const Tensor& weight,
                           const EmbeddingFuncOptions& options = {});
// PyTorch's F.embedding_bag: 1-d input with offsets, or 2-d input of equal bags without
// (src/nn/embedding_bag.cpp).
EMBER_API Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                               const EmbeddingBagFuncOptions& options = {});

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
inline Tensor relu6(Tensor input, const ReLU6FuncOptions& options = {}) {
  return detail::maybe_inplace(input, ember::relu6(input), options.inplace());
}
inline Tensor selu(Tensor input, const SELUFuncOptions& options = {}) {
  return detail::maybe_inplace(input, ember::selu(input), options.inplace());
}
inline Tensor celu(Tensor input, const CELUFuncOptions& options = {}) {
  return detail::maybe_inplace(input, ember::celu(input, options.alpha()), options.inplace());
}
inline Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {}) {
  return ember::hardshrink(input, options.lambda());
}
inline Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {}) {
  return ember::softshrink(input, options.lambda());
}
inline Tensor threshold(Tensor input, const ThresholdFuncOptions& options) {
  return detail::maybe_inplace(input, ember::threshold(input, options.threshold(), options.value()),
                               options.inplace());
}
inline Tensor glu(const Tensor& input, const GLUFuncOptions& options = {}) {
  return ember::glu(input, options.dim());
}
inline Tensor rrelu(Tensor input, const RReLUFuncOptions& options = {}) {
  return options.inplace()
             ? ember::rrelu_(input, options.lower(), options.upper(), options.training())
             : ember::rrelu(input, options.lower(), options.upper(), options.training());
}
inline Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& options = {}) {
  return ember::gumbel_softmax(logits, options.tau(), options.hard(), options.dim());
}
inline Tensor prelu(const Tensor& input, const Tensor& weight) {
  return ember::prelu(input, weight);
}
inline Tensor mish(const Tensor& input) {
  return ember::mish(input);
}
inline Tensor hardswish(const Tensor& input) {
  return ember::hardswish(input);
}
inline Tensor hardsigmoid(const Tensor& input) {
  return ember::hardsigmoid(input);
}
inline Tensor softsign(const Tensor& input) {
  return ember::softsign(input);
}
inline Tensor tanhshrink(const Tensor& input) {
  return ember::tanhshrink(input);
}
inline Tensor logsigmoid(const Tensor& input) {
  return ember::log_sigmoid(input);
}
inline Tensor softmin(const Tensor& input, const SoftminFuncOptions& options) {
  return ember::softmax(-input, options.dim(), options.dtype());
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

// The sampling grid of a batch of affine maps: theta [N, 2, 3] for size [N, C, H, W] gives
// [N, H, W, 2]; theta [N, 3, 4] for size [N, C, D, H, W] gives [N, D, H, W, 3] (x first).
EMBER_API Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners = false);
// input [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (x, y in [-1, 1]) -> [N, C, Ho, Wo]; 5-D input
// with a [N, Do, Ho, Wo, 3] grid samples a volume.
EMBER_API Tensor grid_sample(const Tensor& input, const Tensor& grid,
                             const GridSampleFuncOptions& options = {});

inline Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options) {
  return ember::pixel_shuffle(input, options.upscale_factor());
}
inline Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options) {
  return ember::pixel_unshuffle(input, options.downscale_factor());
}

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

inline Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                                const PairwiseDistanceFuncOptions& options = {}) {
  return ember::pairwise_distance(x1, x2, options.p(), options.eps(), options.keepdim());
}
inline Tensor huber_loss(const Tensor& input, const Tensor& target,
                         const HuberLossFuncOptions& options = {}) {
  return ember::huber_loss(input, target, reduction_code(options.reduction()), options.delta());
}
inline Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                               const SoftMarginLossFuncOptions& options = {}) {
  return ember::soft_margin_loss(input, target, reduction_code(options.reduction()));
}
inline Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                          const MultilabelSoftMarginLossFuncOptions& options = {}) {
  return ember::multilabel_soft_margin_loss(input, target, options.weight(),
                                            reduction_code(options.reduction()));
}
inline Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                                     const MultilabelMarginLossFuncOptions& options = {}) {
  return ember::multilabel_margin_loss(input, target, reduction_code(options.reduction()));
}
inline Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                                   const HingeEmbeddingLossFuncOptions& options = {}) {
  return ember::hinge_embedding_loss(input, target, options.margin(),
                                     reduction_code(options.reduction()));
}
inline Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                                const MultiMarginLossFuncOptions& options = {}) {
  return ember::multi_margin_loss(input, target, options.p(), options.margin(), options.weight(),
                                  reduction_code(options.reduction()));
}
inline Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                               const PoissonNLLLossFuncOptions& options = {}) {
  return ember::poisson_nll_loss(input, target, options.log_input(), options.full(), options.eps(),
                                 reduction_code(options.reduction()));
}
inline Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                                  const MarginRankingLossFuncOptions& options = {}) {
  return ember::margin_ranking_loss(input1, input2, target, options.margin(),
                                    reduction_code(options.reduction()));
}
inline Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2,
                                    const Tensor& target,
                                    const CosineEmbeddingLossFuncOptions& options = {}) {
  return ember::cosine_embedding_loss(input1, input2, target, options.margin(),
                                      reduction_code(options.reduction()));
}
inline Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                       const Tensor& target_lengths, const CTCLossFuncOptions& options = {}) {
  return ember::ctc_loss(log_probs, targets, input_lengths, target_lengths, options.blank(),
                         reduction_code(options.reduction()), options.zero_infinity());
}
inline Tensor triplet_margin_with_distance_loss(
    const Tensor& anchor, const Tensor& positive, const Tensor& negative,
    const TripletMarginWithDistanceLossFuncOptions& options = {}) {
  return ember::triplet_margin_with_distance_loss(
      anchor, positive, negative, options.distance_function(), options.margin(), options.swap(),
      reduction_code(options.reduction()));
}
inline Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive,
                                  const Tensor& negative,
                                  const TripletMarginLossFuncOptions& options = {}) {
  return ember::triplet_margin_loss(anchor, positive, negative, options.margin(), options.p(),
                                    options.eps(), options.swap(),
                                    reduction_code(options.reduction()));
}
inline Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                                const GaussianNLLLossFuncOptions& options = {}) {
  return ember::gaussian_nll_loss(input, target, var, options.full(), options.eps(),
                                  reduction_code(options.reduction()));
}

}  // namespace functional
}  // namespace ember::nn
