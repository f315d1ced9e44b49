#pragma once
// Conv1d/2d/3d, ConvTranspose1d/2d/3d: im2col (vol2col for 3-D) or col2im around one GEMM, so
// they run on every device. The 1-D forms are the 2-D ones over a height of 1.
#include <optional>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/conv.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {
namespace detail {

// What Conv1d and Conv2d share: the parameters, PyTorch's initialisation and the printout.
template <size_t D, typename Derived>
class EMBER_API ConvNdImpl : public Cloneable<Derived> {
 public:
  explicit ConvNdImpl(const ConvOptions<D>& options_) : options(options_) { reset(); }
  // Creates the parameters (the constructor calls it; clone() too).
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  ConvOptions<D> options;
  Tensor weight;  // [out_channels, in_channels / groups, k...]
  Tensor bias;    // [out_channels]

 protected:
  // The input padded as padding_mode says (reflect, replicate, circular), and the padding the
  // convolution itself then adds: zero when the mode padded already.
  std::pair<Tensor, typename ConvOptions<D>::padding_t> apply_padding_mode(
      const Tensor& input) const;
  // Checks the input's rank and channels, naming the module.
  void check_input(const Tensor& input) const;
};

// What ConvTranspose1d and ConvTranspose2d share.
template <size_t D, typename Derived>
class EMBER_API ConvTransposeNdImpl : public Cloneable<Derived> {
 public:
  explicit ConvTransposeNdImpl(const ConvTransposeOptions<D>& options_) : options(options_) {
    reset();
  }
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  ConvTransposeOptions<D> options;
  Tensor weight;  // [in_channels, out_channels / groups, k...]
  Tensor bias;    // [out_channels]

 protected:
  // The output_padding that gives output_size (D sizes, or N, C and D sizes), or the option's
  // when none is asked for; a size no output_padding reaches raises ValueError with the range.
  ExpandingArray<D> output_padding_for(
      const Tensor& input, const std::optional<std::vector<int64_t>>& output_size) const;
  void check_input(const Tensor& input) const;
};

}  // namespace detail

class EMBER_API Conv1dImpl : public detail::ConvNdImpl<1, Conv1dImpl> {
 public:
  Conv1dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : Conv1dImpl(Conv1dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv1dImpl(const Conv1dOptions& options) : ConvNdImpl(options) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Conv1d);

class EMBER_API Conv2dImpl : public detail::ConvNdImpl<2, Conv2dImpl> {
 public:
  Conv2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv2dImpl(const Conv2dOptions& options) : ConvNdImpl(options) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Conv2d);

class EMBER_API ConvTranspose1dImpl : public detail::ConvTransposeNdImpl<1, ConvTranspose1dImpl> {
 public:
  ConvTranspose1dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : ConvTranspose1dImpl(ConvTranspose1dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose1dImpl(const ConvTranspose1dOptions& options)
      : ConvTransposeNdImpl(options) {}
  // output_size picks among the sizes that map onto the input's (see output_padding).
  Tensor forward(const Tensor& input,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
};
EMBER_MODULE(ConvTranspose1d);

class EMBER_API ConvTranspose2dImpl : public detail::ConvTransposeNdImpl<2, ConvTranspose2dImpl> {
 public:
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions& options)
      : ConvTransposeNdImpl(options) {}
  Tensor forward(const Tensor& input,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
};
EMBER_MODULE(ConvTranspose2d);

class EMBER_API Conv3dImpl : public detail::ConvNdImpl<3, Conv3dImpl> {
 public:
  Conv3dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<3> kernel_size)
      : Conv3dImpl(Conv3dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv3dImpl(const Conv3dOptions& options) : ConvNdImpl(options) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Conv3d);

class EMBER_API ConvTranspose3dImpl : public detail::ConvTransposeNdImpl<3, ConvTranspose3dImpl> {
 public:
  ConvTranspose3dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<3> kernel_size)
      : ConvTranspose3dImpl(ConvTranspose3dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose3dImpl(const ConvTranspose3dOptions& options)
      : ConvTransposeNdImpl(options) {}
  Tensor forward(const Tensor& input,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
};
EMBER_MODULE(ConvTranspose3d);

// Defined once, in src/nn/conv_modules.cpp.
extern template class detail::ConvNdImpl<1, Conv1dImpl>;
extern template class detail::ConvNdImpl<2, Conv2dImpl>;
extern template class detail::ConvTransposeNdImpl<1, ConvTranspose1dImpl>;
extern template class detail::ConvTransposeNdImpl<2, ConvTranspose2dImpl>;
extern template class detail::ConvNdImpl<3, Conv3dImpl>;
extern template class detail::ConvTransposeNdImpl<3, ConvTranspose3dImpl>;

}  // namespace ember::nn
