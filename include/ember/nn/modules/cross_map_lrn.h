#pragma once
// CrossMapLRN2d: Lua Torch's cross-channel local response normalisation of [N, C, H, W] input,
// which PyTorch and libtorch keep as a module with a hand-written backward.
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/cross_map_lrn.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

namespace functional {
// x * (k + alpha / size * s)^-beta, s summing x^2 over PyTorch's legacy channel window (which
// also always counts channel 0), with PyTorch's legacy gradient (src/nn/cross_map_lrn.cpp). An
// Ember extension: libtorch and PyTorch reach it only through the module.
EMBER_API Tensor cross_map_lrn2d(const Tensor& input, const CrossMapLRN2dOptions& options);
}  // namespace functional

class EMBER_API CrossMapLRN2dImpl : public Cloneable<CrossMapLRN2dImpl> {
 public:
  explicit CrossMapLRN2dImpl(int64_t size) : CrossMapLRN2dImpl(CrossMapLRN2dOptions(size)) {}
  explicit CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  CrossMapLRN2dOptions options;
};
EMBER_MODULE(CrossMapLRN2d);

}  // namespace ember::nn
