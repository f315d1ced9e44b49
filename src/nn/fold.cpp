// F::fold / F::unfold and the Fold and Unfold modules over ember::col2im / ember::im2col, with
// unbatched inputs given a batch of one as PyTorch 1.13 does.
#include "ember/nn/modules/fold.h"

#include "ember/nn/functional.h"

namespace ember::nn {
namespace functional {

Tensor fold(const Tensor& input, const FoldFuncOptions& options) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, ValueError,
              "Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got ",
              input.dim(), "D)");
  const bool batched = input.dim() == 3;
  Tensor out =
      ember::col2im(batched ? input : input.unsqueeze(0), options.output_size(),
                    options.kernel_size(), options.dilation(), options.padding(), options.stride());
  return batched ? out : out.squeeze(0);
}

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, ValueError,
              "Input Error: Only unbatched (3D) or batched (4D) input Tensors are supported (got ",
              input.dim(), "D)");
  const bool batched = input.dim() == 4;
  Tensor out = ember::im2col(batched ? input : input.unsqueeze(0), options.kernel_size(),
                             options.dilation(), options.padding(), options.stride());
  return batched ? out : out.squeeze(0);
}

}  // namespace functional

Tensor FoldImpl::forward(const Tensor& input) {
  return functional::fold(input, options);
}
void FoldImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Fold(output_size=" << options.output_size()
         << ", kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation()
         << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
}

Tensor UnfoldImpl::forward(const Tensor& input) {
  return functional::unfold(input, options);
}
void UnfoldImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Unfold(kernel_size=" << options.kernel_size()
         << ", dilation=" << options.dilation() << ", padding=" << options.padding()
         << ", stride=" << options.stride() << ")";
}

}  // namespace ember::nn
