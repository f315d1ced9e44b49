#pragma once
// Upsample: F::interpolate with the module's size or scale factor and mode.
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/upsampling.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  UpsampleOptions options;
};
EMBER_MODULE(Upsample);

}  // namespace ember::nn
