#pragma once
// ATen-style free functions behind nn (torch::conv2d, torch::mse_loss, ... in libtorch): the
// functional API (ember::nn::functional) and the modules call these. Reductions take ATen's
// integer codes, ember::Reduction::{None, Mean, Sum}.
#include <cstdint>
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

// Normalises over every dim but 1. In training (or without running stats) uses the batch
// statistics and, when running stats are given, updates them in place with `momentum`.
EMBER_API Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                            const Tensor& running_mean, const Tensor& running_var, bool training,
                            double momentum, double eps);
EMBER_API Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                            const Tensor& weight = {}, const Tensor& bias = {}, double eps = 1e-5);
EMBER_API Tensor dropout(const Tensor& input, double p, bool train);
// Rows of weight picked by indices; the padding_idx row (when >= 0) gets no gradient.
EMBER_API Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1);

// Activations (torch::leaky_relu, ...), composed from elementwise ops.
EMBER_API Tensor leaky_relu(const Tensor& input, double negative_slope = 0.01);
EMBER_API Tensor elu(const Tensor& input, double alpha = 1.0);
EMBER_API Tensor softplus(const Tensor& input, double beta = 1.0, double threshold = 20.0);
EMBER_API Tensor hardtanh(const Tensor& input, double min_val = -1.0, double max_val = 1.0);

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

}  // namespace ember
