#pragma once
// CosineSimilarity: forward(x1, x2) = F::cosine_similarity with the options fixed.
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

}  // namespace ember::nn
