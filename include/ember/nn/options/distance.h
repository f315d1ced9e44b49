#pragma once
// Options of CosineSimilarity and F::cosine_similarity.
#include <cstdint>

#include "ember/nn/arg.h"

namespace ember::nn {

struct CosineSimilarityOptions {
  EMBER_ARG(int64_t, dim) = 1;
  // Lower bound of the product of the two norms.
  EMBER_ARG(double, eps) = 1e-8;
};

namespace functional {
using CosineSimilarityFuncOptions = CosineSimilarityOptions;
}  // namespace functional

}  // namespace ember::nn
