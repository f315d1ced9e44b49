#pragma once
// Dropout: zeroes elements with probability p in training and scales the rest by 1 / (1 - p);
// the identity in eval().
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/dropout.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  void reset() override {}
  explicit DropoutImpl(const DropoutOptions& options = {});
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  DropoutOptions options;
};
EMBER_MODULE(Dropout);

}  // namespace ember::nn
