#pragma once
// CosineSimilarity and PairwiseDistance: forward(x1, x2) = their functional form with the options
// fixed.
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/distance.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API CosineSimilarityImpl : public Cloneable<CosineSimilarityImpl> {
 public:
  void reset() override {}
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {});
  Tensor forward(const Tensor& x1, const Tensor& x2);
  void pretty_print(std::ostream& stream) const override;
  CosineSimilarityOptions options;
};
EMBER_MODULE(CosineSimilarity);

class EMBER_API PairwiseDistanceImpl : public Cloneable<PairwiseDistanceImpl> {
 public:
  void reset() override {}
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& x1, const Tensor& x2);
  void pretty_print(std::ostream& stream) const override;
  PairwiseDistanceOptions options;
};
EMBER_MODULE(PairwiseDistance);

}  // namespace ember::nn
