#pragma once
// Fold (columns summed back into an image, col2im) and Unfold (an image's sliding windows as
// columns, im2col), for [N, C, H, W] or unbatched [C, H, W] images.
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/fold.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API FoldImpl : public Cloneable<FoldImpl> {
 public:
  FoldImpl(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : FoldImpl(FoldOptions(output_size, kernel_size)) {}
  explicit FoldImpl(const FoldOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  FoldOptions options;
};
EMBER_MODULE(Fold);

class EMBER_API UnfoldImpl : public Cloneable<UnfoldImpl> {
 public:
  explicit UnfoldImpl(ExpandingArray<2> kernel_size) : UnfoldImpl(UnfoldOptions(kernel_size)) {}
  explicit UnfoldImpl(const UnfoldOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  UnfoldOptions options;
};
EMBER_MODULE(Unfold);

}  // namespace ember::nn
