#pragma once
// Options of CosineSimilarity, PairwiseDistance and their functional forms.
#include <cstdint>

#include "ember/nn/arg.h"

namespace ember::nn {

struct CosineSimilarityOptions {
  EMBER_ARG(int64_t, dim) = 1;
  // Lower bound of the product of the two norms.
  EMBER_ARG(double, eps) = 1e-8;
};

struct PairwiseDistanceOptions {
  EMBER_ARG(double, p) = 2.0;
  // Added to the difference before the norm, so that equal inputs have a gradient.
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, keepdim) = false;
};

namespace functional {
using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;
}  // namespace functional

}  // namespace ember::nn
