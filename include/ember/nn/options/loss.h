#pragma once
// Options of the loss modules; F::*FuncOptions are the same types, as in libtorch.
#include <cstdint>

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

#undef EMBER_REDUCTION_CTORS

namespace functional {
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using MSELossFuncOptions = MSELossOptions;
using L1LossFuncOptions = L1LossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
}  // namespace functional

}  // namespace ember::nn
