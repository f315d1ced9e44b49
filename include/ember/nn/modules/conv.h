#pragma once
// Conv2d: im2col (an index gather) followed by one GEMM, so it runs on every device.
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/conv.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API Conv2dImpl : public Cloneable<Conv2dImpl> {
 public:
  // Creates the parameters (the constructor calls it; clone() too).
  void reset() override;
  Conv2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv2dImpl(const Conv2dOptions& options);
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  Conv2dOptions options;
  Tensor weight;  // [out_channels, in_channels / groups, kh, kw]
  Tensor bias;    // [out_channels]
};
EMBER_MODULE(Conv2d);

}  // namespace ember::nn
