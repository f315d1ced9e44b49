#pragma once
// ATen-style free functions behind nn (torch::conv2d, torch::mse_loss, ... in libtorch): the
// functional API (ember::nn::functional) and the modules call these. Reductions take ATen's
// integer codes, ember::Reduction::{None, Mean, Sum}.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/nn/enum.h"
#include "ember/nn/expanding_array.h"
#include "ember/tensor.h"

namespace ember {

// input @ weight^T + bias, for input [*, in_features] and weight [out_features, in_features].
EMBER_API Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
// x1^T W[o] x2 + b[o] for input1 [*, in1], input2 [*, in2], weight [out, in1, in2].
EMBER_API Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                          const Tensor& bias = {});

// Windows of a [N, C, H, W] input as columns: [N, C * kh * kw, L] (torch.nn.functional.unfold).
EMBER_API Tensor im2col(const Tensor& input, ExpandingArray<2> kernel_size,
                        ExpandingArray<2> dilation = 1, ExpandingArray<2> padding = 0,
                        ExpandingArray<2> stride = 1);
// The inverse arrangement (torch.nn.functional.fold): [N, C * kh * kw, L] columns summed back
// into [N, C, output_size] (overlapping windows add up).
EMBER_API Tensor col2im(const Tensor& input, ExpandingArray<2> output_size,
                        ExpandingArray<2> kernel_size, ExpandingArray<2> dilation = 1,
                        ExpandingArray<2> padding = 0, ExpandingArray<2> stride = 1);
// 2-D convolution of [N, C, H, W] (or unbatched [C, H, W]) with weight [O, C / groups, kh, kw].
EMBER_API Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        ExpandingArray<2> stride = 1, ExpandingArray<2> padding = 0,
                        ExpandingArray<2> dilation = 1, int64_t groups = 1);
// 1-D convolution of [N, C, L] (or unbatched [C, L]) with weight [O, C / groups, k].
EMBER_API Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        ExpandingArray<1> stride = 1, ExpandingArray<1> padding = 0,
                        ExpandingArray<1> dilation = 1, int64_t groups = 1);
// Transposed convolutions (the gradient of conv1d/conv2d with respect to its input): weight
// [C, O / groups, k...], output size (in - 1) * stride - 2 * padding + dilation * (k - 1) +
// output_padding + 1 per spatial dim. output_padding must be smaller than stride or dilation.
EMBER_API Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                                  const Tensor& bias = {}, ExpandingArray<1> stride = 1,
                                  ExpandingArray<1> padding = 0,
                                  ExpandingArray<1> output_padding = 0, int64_t groups = 1,
                                  ExpandingArray<1> dilation = 1);
EMBER_API Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                                  const Tensor& bias = {}, ExpandingArray<2> stride = 1,
                                  ExpandingArray<2> padding = 0,
                                  ExpandingArray<2> output_padding = 0, int64_t groups = 1,
                                  ExpandingArray<2> dilation = 1);
// 3-D convolution of [N, C, D, H, W] (or unbatched [C, D, H, W]) with weight
// [O, C / groups, kd, kh, kw]: vol2col (im2col over volumes) and one GEMM.
EMBER_API Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        ExpandingArray<3> stride = 1, ExpandingArray<3> padding = 0,
                        ExpandingArray<3> dilation = 1, int64_t groups = 1);
EMBER_API Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                                  const Tensor& bias = {}, ExpandingArray<3> stride = 1,
                                  ExpandingArray<3> padding = 0,
                                  ExpandingArray<3> output_padding = 0, int64_t groups = 1,
                                  ExpandingArray<3> dilation = 1);

// stride defaults to kernel_size.
EMBER_API Tensor max_pool2d(const Tensor& input, ExpandingArray<2> kernel_size,
                            std::optional<ExpandingArray<2>> stride = std::nullopt,
                            ExpandingArray<2> padding = 0, ExpandingArray<2> dilation = 1,
                            bool ceil_mode = false);
// The maxima and, for each, its flat position h * W + w within its plane (int64), as PyTorch's
// max_pool2d(..., return_indices=True).
EMBER_API std::tuple<Tensor, Tensor> max_pool2d_with_indices(
    const Tensor& input, ExpandingArray<2> kernel_size,
    std::optional<ExpandingArray<2>> stride = std::nullopt, ExpandingArray<2> padding = 0,
    ExpandingArray<2> dilation = 1, bool ceil_mode = false);
EMBER_API Tensor avg_pool2d(const Tensor& input, ExpandingArray<2> kernel_size,
                            std::optional<ExpandingArray<2>> stride = std::nullopt,
                            ExpandingArray<2> padding = 0, bool ceil_mode = false,
                            bool count_include_pad = true,
                            std::optional<int64_t> divisor_override = std::nullopt);
EMBER_API Tensor adaptive_avg_pool2d(const Tensor& input, ExpandingArray<2> output_size);
// The largest element of each adaptive window and its flat h * W + w position in its plane.
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input,
                                                         ExpandingArray<2> output_size);
// The 1-D pools over [N, C, L] (or unbatched [C, L]): the 2-D ones over a height of 1.
EMBER_API Tensor max_pool1d(const Tensor& input, ExpandingArray<1> kernel_size,
                            std::optional<ExpandingArray<1>> stride = std::nullopt,
                            ExpandingArray<1> padding = 0, ExpandingArray<1> dilation = 1,
                            bool ceil_mode = false);
EMBER_API std::tuple<Tensor, Tensor> max_pool1d_with_indices(
    const Tensor& input, ExpandingArray<1> kernel_size,
    std::optional<ExpandingArray<1>> stride = std::nullopt, ExpandingArray<1> padding = 0,
    ExpandingArray<1> dilation = 1, bool ceil_mode = false);
EMBER_API Tensor avg_pool1d(const Tensor& input, ExpandingArray<1> kernel_size,
                            std::optional<ExpandingArray<1>> stride = std::nullopt,
                            ExpandingArray<1> padding = 0, bool ceil_mode = false,
                            bool count_include_pad = true);
EMBER_API Tensor adaptive_avg_pool1d(const Tensor& input, ExpandingArray<1> output_size);
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input,
                                                         ExpandingArray<1> output_size);
// The 3-D pools over [N, C, D, H, W] (or unbatched [C, D, H, W]); indices are flat
// (d * H + h) * W + w positions within each channel's volume.
EMBER_API Tensor max_pool3d(const Tensor& input, ExpandingArray<3> kernel_size,
                            std::optional<ExpandingArray<3>> stride = std::nullopt,
                            ExpandingArray<3> padding = 0, ExpandingArray<3> dilation = 1,
                            bool ceil_mode = false);
EMBER_API std::tuple<Tensor, Tensor> max_pool3d_with_indices(
    const Tensor& input, ExpandingArray<3> kernel_size,
    std::optional<ExpandingArray<3>> stride = std::nullopt, ExpandingArray<3> padding = 0,
    ExpandingArray<3> dilation = 1, bool ceil_mode = false);
EMBER_API Tensor avg_pool3d(const Tensor& input, ExpandingArray<3> kernel_size,
                            std::optional<ExpandingArray<3>> stride = std::nullopt,
                            ExpandingArray<3> padding = 0, bool ceil_mode = false,
                            bool count_include_pad = true,
                            std::optional<int64_t> divisor_override = std::nullopt);
EMBER_API Tensor adaptive_avg_pool3d(const Tensor& input, ExpandingArray<3> output_size);
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& input,
                                                         ExpandingArray<3> output_size);
// The partial inverses of max pooling: a zero tensor of output_size per plane (the spatial
// sizes) with each input value written at its index, as PyTorch's max_unpool1d/2d/3d. Indices
// are flat positions within each plane, as the max pools return them.
EMBER_API Tensor max_unpool1d(const Tensor& input, const Tensor& indices,
                              ExpandingArray<1> output_size);
EMBER_API Tensor max_unpool2d(const Tensor& input, const Tensor& indices,
                              ExpandingArray<2> output_size);
EMBER_API Tensor max_unpool3d(const Tensor& input, const Tensor& indices,
                              ExpandingArray<3> output_size);

// Normalises over every dim but 1. In training (or without running stats) uses the batch
// statistics and, when running stats are given, updates them in place with `momentum`.
EMBER_API Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                            const Tensor& running_mean, const Tensor& running_var, bool training,
                            double momentum, double eps);
EMBER_API Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                            const Tensor& weight = {}, const Tensor& bias = {}, double eps = 1e-5);
// Normalises each group of num_groups channels of each sample over its channels and positions,
// then scales and shifts per channel.
EMBER_API Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {},
                            const Tensor& bias = {}, double eps = 1e-5);
// Normalises each channel of each sample over its positions (use_input_stats), or with the
// running statistics; with use_input_stats and running stats given, updates them in place with
// `momentum` from the batch's mean over samples.
EMBER_API Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                               const Tensor& running_mean, const Tensor& running_var,
                               bool use_input_stats, double momentum, double eps);
EMBER_API Tensor dropout(const Tensor& input, double p, bool train);
// Dropout of whole channels: one Bernoulli(1 - p) draw per (sample, channel), broadcast over the
// positions (Dropout1d/2d/3d).
EMBER_API Tensor feature_dropout(const Tensor& input, double p, bool train);
// Dropout that keeps a SELU network's mean and variance: dropped elements become SELU's negative
// saturation value and the result is scaled and shifted back (AlphaDropout); the feature form
// drops whole channels (FeatureAlphaDropout).
EMBER_API Tensor alpha_dropout(const Tensor& input, double p, bool train);
EMBER_API Tensor feature_alpha_dropout(const Tensor& input, double p, bool train);
// One step of PyTorch's recurrent cells (torch.lstm_cell, gru_cell, rnn_tanh_cell,
// rnn_relu_cell; the cell modules call them): input [B, I], hidden [B, H] (LSTM: hx = {h, c}),
// w_ih [G * H, I], w_hh [G * H, H], biases [G * H] or undefined; G = 4 (LSTM), 3 (GRU), 1.
EMBER_API std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, const std::vector<Tensor>& hx,
                                               const Tensor& w_ih, const Tensor& w_hh,
                                               const Tensor& b_ih = {}, const Tensor& b_hh = {});
EMBER_API Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                          const Tensor& w_hh, const Tensor& b_ih = {}, const Tensor& b_hh = {});
EMBER_API Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                               const Tensor& w_hh, const Tensor& b_ih = {},
                               const Tensor& b_hh = {});
EMBER_API Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                               const Tensor& w_hh, const Tensor& b_ih = {},
                               const Tensor& b_hh = {});
// Rows of weight picked by indices; the padding_idx row (when >= 0) gets no gradient. With
// scale_grad_by_freq each row's gradient is divided by the number of times its index occurs;
// sparse is accepted for libtorch code (the gradient is dense).
EMBER_API Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1,
                           bool scale_grad_by_freq = false, bool sparse = false);
// Rescales, in place and without recording a gradient, each row of self named in indices whose
// norm_type-norm exceeds max_norm to norm max_norm (PyTorch's scale max_norm / (norm + 1e-7)).
EMBER_API Tensor embedding_renorm_(const Tensor& self, const Tensor& indices, double max_norm,
                                   double norm_type);
// Sums (mode 0), averages (1) or takes the elementwise maximum (2) of the rows of weight named
// by each bag of indices: 1-d indices cut into bags at offsets (with include_last_offset the last
// offset ends the last bag), or 2-d indices [B, L] of B bags of L (offsets undefined).
// per_sample_weights (mode sum only) scales each looked-up row; indices equal to padding_idx are
// left out of their bag. Returns (output [B, D], offset2bag: each index's bag, bag_size: each
// bag's count of indices, max_indices: for mode max the row each maximum came from, else
// undefined). An empty bag gives zeros.
EMBER_API std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets,
    bool scale_grad_by_freq = false, int64_t mode = 0, bool sparse = false,
    const Tensor& per_sample_weights = {}, bool include_last_offset = false,
    std::optional<int64_t> padding_idx = std::nullopt);

// Activations (torch::leaky_relu, ...), composed from elementwise ops.
EMBER_API Tensor leaky_relu(const Tensor& input, double negative_slope = 0.01);
EMBER_API Tensor elu(const Tensor& input, double alpha = 1.0);
EMBER_API Tensor softplus(const Tensor& input, double beta = 1.0, double threshold = 20.0);
EMBER_API Tensor hardtanh(const Tensor& input, double min_val = -1.0, double max_val = 1.0);
EMBER_API Tensor relu6(const Tensor& input);
// x * relu6(x + 3) / 6 and relu6(x + 3) / 6 (MobileNetV3).
EMBER_API Tensor hardswish(const Tensor& input);
EMBER_API Tensor hardsigmoid(const Tensor& input);
// x * tanh(softplus(x)).
EMBER_API Tensor mish(const Tensor& input);
// scale * elu(x, alpha) with PyTorch's self-normalising constants.
EMBER_API Tensor selu(const Tensor& input);
// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
EMBER_API Tensor celu(const Tensor& input, double alpha = 1.0);
EMBER_API Tensor softsign(const Tensor& input);
EMBER_API Tensor tanhshrink(const Tensor& input);
// x where |x| > lambd, else 0.
EMBER_API Tensor hardshrink(const Tensor& input, double lambd = 0.5);
// x - lambd above lambd, x + lambd below -lambd, else 0.
EMBER_API Tensor softshrink(const Tensor& input, double lambd = 0.5);
EMBER_API Tensor log_sigmoid(const Tensor& input);
// x where x > threshold, else value.
EMBER_API Tensor threshold(const Tensor& input, double threshold, double value);
// The first half of `dim` times the sigmoid of the second half.
EMBER_API Tensor glu(const Tensor& input, int64_t dim = -1);
// leaky_relu with a learned slope per channel (dim 1), or one slope for all.
EMBER_API Tensor prelu(const Tensor& input, const Tensor& weight);
// leaky_relu with a random slope: in training each negative element gets its own slope drawn
// from U(lower, upper) (the default generator); otherwise the slope is (lower + upper) / 2.
EMBER_API Tensor rrelu(const Tensor& input, double lower = 1.0 / 8.0, double upper = 1.0 / 3.0,
                       bool training = false);
// rrelu written into input.
EMBER_API Tensor rrelu_(const Tensor& input, double lower = 1.0 / 8.0, double upper = 1.0 / 3.0,
                        bool training = false);
// softmax((logits + Gumbel(0, 1) noise) / tau) along dim; with hard, the one-hot of its largest
// entry, whose gradient is the soft sample's (straight-through).
EMBER_API Tensor gumbel_softmax(const Tensor& logits, double tau = 1.0, bool hard = false,
                                int64_t dim = -1);

// Power-average pooling, (sum of x^p over each window)^(1/p) with p = norm_type, over [N, C, L]
// or [N, C, H, W] (or unbatched); stride defaults to kernel_size.
EMBER_API Tensor lp_pool1d(const Tensor& input, double norm_type, ExpandingArray<1> kernel_size,
                           std::optional<ExpandingArray<1>> stride = std::nullopt,
                           bool ceil_mode = false);
EMBER_API Tensor lp_pool2d(const Tensor& input, double norm_type, ExpandingArray<2> kernel_size,
                           std::optional<ExpandingArray<2>> stride = std::nullopt,
                           bool ceil_mode = false);

// [*, C * r * r, H, W] -> [*, C, H * r, W * r] (sub-pixel convolution, Shi et al. 2016) and back.
EMBER_API Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
EMBER_API Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);
// [N, C, *]: the channels of each of `groups` groups interleaved (ShuffleNet).
EMBER_API Tensor channel_shuffle(const Tensor& input, int64_t groups);

// Pads the last pad.size() / 2 dims: pad = (left, right) of the last dim, then (top, bottom) of
// the one before, ... mode: "constant" (value; negative amounts crop), "reflect", "replicate",
// "circular" (these for 1-3 padded dims of a batched or unbatched input), as at::pad.
EMBER_API Tensor pad(const Tensor& input, IntArrayRef pad, const std::string& mode = "constant",
                     std::optional<double> value = std::nullopt);

// Cosine of the angle between x1 and x2 along dim (broadcast); the product of the norms is
// clamped to at least eps.
EMBER_API Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1,
                                   double eps = 1e-8);

// Losses. Class-index targets are int64; out-of-range targets (other than ignore_index) raise
// IndexError naming the target and the number of classes (checked for CPU targets).
EMBER_API Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                          int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);
// log_softmax + nll_loss; a floating target of the input's shape is taken as class probabilities.
EMBER_API Tensor cross_entropy_loss(const Tensor& input, const Tensor& target,
                                    const Tensor& weight = {}, int64_t reduction = Reduction::Mean,
                                    int64_t ignore_index = -100, double label_smoothing = 0.0);
EMBER_API Tensor mse_loss(const Tensor& input, const Tensor& target,
                          int64_t reduction = Reduction::Mean);
EMBER_API Tensor l1_loss(const Tensor& input, const Tensor& target,
                         int64_t reduction = Reduction::Mean);
// Sigmoid + binary cross entropy in one numerically stable expression.
EMBER_API Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                                  const Tensor& weight = {},
                                                  const Tensor& pos_weight = {},
                                                  int64_t reduction = Reduction::Mean);

// Binary cross entropy of probabilities (each log clamped at -100, as PyTorch).
EMBER_API Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                                      const Tensor& weight = {},
                                      int64_t reduction = Reduction::Mean);
// Quadratic below beta, linear above (l1_loss when beta is 0).
EMBER_API Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                                int64_t reduction = Reduction::Mean, double beta = 1.0);
// KL(target || exp(input)) pointwise: input holds log-probabilities.
EMBER_API Tensor kl_div(const Tensor& input, const Tensor& target,
                        int64_t reduction = Reduction::Mean, bool log_target = false);

// Quadratic below delta, linear above (smooth_l1_loss times beta = delta).
EMBER_API Tensor huber_loss(const Tensor& input, const Tensor& target,
                            int64_t reduction = Reduction::Mean, double delta = 1.0);
// log(1 + exp(-target * input)) for targets of +-1.
EMBER_API Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                                  int64_t reduction = Reduction::Mean);
// Per sample the mean over classes of the binary cross entropy of sigmoid(input) (targets 0/1).
EMBER_API Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                             const Tensor& weight = {},
                                             int64_t reduction = Reduction::Mean);
// max(0, -target * (input1 - input2) + margin).
EMBER_API Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2,
                                     const Tensor& target, double margin = 0.0,
                                     int64_t reduction = Reduction::Mean);
// input where target is 1, max(0, margin - input) where it is -1.
EMBER_API Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                                      double margin = 1.0, int64_t reduction = Reduction::Mean);
// 1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1.
EMBER_API Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2,
                                       const Tensor& target, double margin = 0.0,
                                       int64_t reduction = Reduction::Mean);
// ||x1 - x2 + eps||_p over the last dim.
EMBER_API Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0,
                                   double eps = 1e-6, bool keepdim = false);
// max(0, margin + d(anchor, positive) - d(anchor, negative)); with swap, d(anchor, negative) is
// the smaller of it and d(positive, negative).
EMBER_API Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive,
                                     const Tensor& negative, double margin = 1.0, double p = 2.0,
                                     double eps = 1e-6, bool swap = false,
                                     int64_t reduction = Reduction::Mean);
// Per sample, the mean over the other classes j of max(0, margin - x[y] + x[j])^p (p 1 or 2).
EMBER_API Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p = 1,
                                   double margin = 1.0, const Tensor& weight = {},
                                   int64_t reduction = Reduction::Mean);
// Per sample, target lists class indices up to the first -1; the mean over classes of
// max(0, 1 - (x[j] - x[i])) summed over listed j and unlisted i.
EMBER_API Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                                        int64_t reduction = Reduction::Mean);
// Negative log likelihood of target under Poisson(exp(input)) (log_input) or Poisson(input);
// full adds Stirling's approximation of log(target!).
EMBER_API Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input = true,
                                  bool full = false, double eps = 1e-8,
                                  int64_t reduction = Reduction::Mean);
// Negative log likelihood of target under Normal(input, var), var clamped to eps (the clamp
// passes gradients through, as PyTorch's).
EMBER_API Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                                   bool full = false, double eps = 1e-6,
                                   int64_t reduction = Reduction::Mean);

// Connectionist temporal classification: the negative log likelihood of each target under
// log_probs [T, N, C] (or unbatched [T, C]) summed over every alignment. targets are padded
// [N, S] or the targets concatenated in 1-d; input_lengths and target_lengths give each
// sample's lengths. kMean divides each loss by its target length (at least 1) and averages.
// The gradient with respect to log_probs is PyTorch's (that of the logits under log_softmax).
EMBER_API Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets,
                          const Tensor& input_lengths, const Tensor& target_lengths,
                          int64_t blank = 0, int64_t reduction = Reduction::Mean,
                          bool zero_infinity = false);
EMBER_API Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                          IntArrayRef target_lengths, int64_t blank = 0,
                          int64_t reduction = Reduction::Mean, bool zero_infinity = false);
// max(0, margin + d(anchor, positive) - d(anchor, negative)) for a distance function d
// (pairwise_distance when not given); with swap, d(anchor, negative) is the smaller of it and
// d(positive, negative).
EMBER_API Tensor triplet_margin_with_distance_loss(
    const Tensor& anchor, const Tensor& positive, const Tensor& negative,
    std::optional<std::function<Tensor(const Tensor&, const Tensor&)>> distance_function =
        std::nullopt,
    double margin = 1.0, bool swap = false, int64_t reduction = Reduction::Mean);

}  // namespace ember
