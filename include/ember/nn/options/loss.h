#pragma once
// Options of the loss modules; F::*FuncOptions are the same types, as in libtorch.
#include <cstdint>
#include <functional>
#include <optional>
#include <variant>

#include "ember/nn/arg.h"
#include "ember/nn/enum.h"
#include "ember/tensor.h"

namespace ember::nn {

// Constructors from a reduction tag, so MSELossOptions(ember::kSum) works as in libtorch.
#define EMBER_REDUCTION_CTORS(Options)          \
  Options() = default;                          \
  Options(enumtype::kNone r) : reduction_(r) {} \
  Options(enumtype::kMean r) : reduction_(r) {} \
  Options(enumtype::kSum r) : reduction_(r) {}  \
  Options(reduction_t r) : reduction_(std::move(r)) {}

struct CrossEntropyLossOptions {
  EMBER_REDUCTION_CTORS(CrossEntropyLossOptions)
  // Per-class weights, shape [C].
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(reduction_t, reduction) = kMean;
  EMBER_ARG(double, label_smoothing) = 0.0;
};

struct NLLLossOptions {
  EMBER_REDUCTION_CTORS(NLLLossOptions)
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct MSELossOptions {
  EMBER_REDUCTION_CTORS(MSELossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct L1LossOptions {
  EMBER_REDUCTION_CTORS(L1LossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct BCEWithLogitsLossOptions {
  EMBER_REDUCTION_CTORS(BCEWithLogitsLossOptions)
  // Rescales each element's loss (broadcast to the input).
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(reduction_t, reduction) = kMean;
  // Weight of positive examples per class (broadcast along the last dimension).
  EMBER_ARG(Tensor, pos_weight);
};

// Binary cross entropy on probabilities (F::binary_cross_entropy, BCELoss).
struct BCELossOptions {
  EMBER_REDUCTION_CTORS(BCELossOptions)
  // Rescales each element's loss (broadcast to the target).
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct SmoothL1LossOptions {
  EMBER_REDUCTION_CTORS(SmoothL1LossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
  // Where the loss changes from quadratic to linear. Read by the SmoothL1Loss module; the
  // functional F::smooth_l1_loss takes beta as its own argument instead, as in libtorch 1.13.
  EMBER_ARG(double, beta) = 1.0;
};

using kl_div_reduction_t =
    std::variant<enumtype::kNone, enumtype::kBatchMean, enumtype::kSum, enumtype::kMean>;
struct KLDivLossOptions {
  KLDivLossOptions() = default;
  KLDivLossOptions(enumtype::kNone r) : reduction_(r) {}
  KLDivLossOptions(enumtype::kBatchMean r) : reduction_(r) {}
  KLDivLossOptions(enumtype::kSum r) : reduction_(r) {}
  KLDivLossOptions(enumtype::kMean r) : reduction_(r) {}
  using reduction_t = kl_div_reduction_t;
  // kBatchMean is the mathematical KL divergence per sample; kMean also divides by the support.
  EMBER_ARG(reduction_t, reduction) = kMean;
  // The target is given as log-probabilities.
  EMBER_ARG(bool, log_target) = false;
};

struct HuberLossOptions {
  EMBER_REDUCTION_CTORS(HuberLossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
  EMBER_ARG(double, delta) = 1.0;
};

struct SoftMarginLossOptions {
  EMBER_REDUCTION_CTORS(SoftMarginLossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct MultiLabelSoftMarginLossOptions {
  EMBER_REDUCTION_CTORS(MultiLabelSoftMarginLossOptions)
  // Per-class weights, shape [C].
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct MultiLabelMarginLossOptions {
  EMBER_REDUCTION_CTORS(MultiLabelMarginLossOptions)
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct MarginRankingLossOptions {
  EMBER_ARG(double, margin) = 0;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct HingeEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct CosineEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 0.0;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct TripletMarginLossOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct MultiMarginLossOptions {
  EMBER_ARG(int64_t, p) = 1;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct PoissonNLLLossOptions {
  EMBER_ARG(bool, log_input) = true;
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

struct GaussianNLLLossOptions {
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

// Connectionist temporal classification (F::ctc_loss, CTCLoss).
struct CTCLossOptions {
  // The class index of the blank label.
  EMBER_ARG(int64_t, blank) = 0;
  // kMean divides each sample's loss by its target length, then averages over the batch.
  EMBER_ARG(reduction_t, reduction) = kMean;
  // Infinite losses (no alignment fits) and their gradients become zero.
  EMBER_ARG(bool, zero_infinity) = false;
};

struct TripletMarginWithDistanceLossOptions {
  using distance_function_t = std::function<Tensor(const Tensor&, const Tensor&)>;
  // The distance of two batches of embeddings; pairwise_distance when not given.
  EMBER_ARG(std::optional<distance_function_t>, distance_function) = std::nullopt;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

#undef EMBER_REDUCTION_CTORS

namespace functional {
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using MSELossFuncOptions = MSELossOptions;
using L1LossFuncOptions = L1LossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using KLDivFuncOptions = KLDivLossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using SoftMarginLossFuncOptions = SoftMarginLossOptions;
using MultilabelSoftMarginLossFuncOptions = MultiLabelSoftMarginLossOptions;
using MultilabelMarginLossFuncOptions = MultiLabelMarginLossOptions;
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using HingeEmbeddingLossFuncOptions = HingeEmbeddingLossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
using MultiMarginLossFuncOptions = MultiMarginLossOptions;
using PoissonNLLLossFuncOptions = PoissonNLLLossOptions;
using GaussianNLLLossFuncOptions = GaussianNLLLossOptions;
using CTCLossFuncOptions = CTCLossOptions;
using TripletMarginWithDistanceLossFuncOptions = TripletMarginWithDistanceLossOptions;
}  // namespace functional

}  // namespace ember::nn
