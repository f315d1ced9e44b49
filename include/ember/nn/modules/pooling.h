#pragma once
// MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d,
// MaxUnpool1d/2d/3d and LPPool1d/2d.
#include <optional>
#include <tuple>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/pooling.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API MaxPool2dImpl : public Cloneable<MaxPool2dImpl> {
 public:
  void reset() override {}
  explicit MaxPool2dImpl(ExpandingArray<2> kernel_size)
      : MaxPool2dImpl(MaxPool2dOptions(kernel_size)) {}
  explicit MaxPool2dImpl(const MaxPool2dOptions& options);
  Tensor forward(const Tensor& input);
  // The output and the flat h * W + w position of each maximum in its plane.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  MaxPool2dOptions options;
};
EMBER_MODULE(MaxPool2d);

class EMBER_API AvgPool2dImpl : public Cloneable<AvgPool2dImpl> {
 public:
  void reset() override {}
  explicit AvgPool2dImpl(ExpandingArray<2> kernel_size)
      : AvgPool2dImpl(AvgPool2dOptions(kernel_size)) {}
  explicit AvgPool2dImpl(const AvgPool2dOptions& options);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AvgPool2dOptions options;
};
EMBER_MODULE(AvgPool2d);

class EMBER_API AdaptiveAvgPool2dImpl : public Cloneable<AdaptiveAvgPool2dImpl> {
 public:
  void reset() override {}
  explicit AdaptiveAvgPool2dImpl(ExpandingArray<2> output_size)
      : AdaptiveAvgPool2dImpl(AdaptiveAvgPool2dOptions(output_size)) {}
  explicit AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& options);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AdaptiveAvgPool2dOptions options;
};
EMBER_MODULE(AdaptiveAvgPool2d);

class EMBER_API AdaptiveMaxPool2dImpl : public Cloneable<AdaptiveMaxPool2dImpl> {
 public:
  void reset() override {}
  explicit AdaptiveMaxPool2dImpl(ExpandingArray<2> output_size)
      : AdaptiveMaxPool2dImpl(AdaptiveMaxPool2dOptions(output_size)) {}
  explicit AdaptiveMaxPool2dImpl(const AdaptiveMaxPool2dOptions& options);
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AdaptiveMaxPool2dOptions options;
};
EMBER_MODULE(AdaptiveMaxPool2d);

class EMBER_API MaxPool1dImpl : public Cloneable<MaxPool1dImpl> {
 public:
  void reset() override {}
  explicit MaxPool1dImpl(ExpandingArray<1> kernel_size)
      : MaxPool1dImpl(MaxPool1dOptions(kernel_size)) {}
  explicit MaxPool1dImpl(const MaxPool1dOptions& options_) : options(options_) {}
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  MaxPool1dOptions options;
};
EMBER_MODULE(MaxPool1d);

class EMBER_API AvgPool1dImpl : public Cloneable<AvgPool1dImpl> {
 public:
  void reset() override {}
  explicit AvgPool1dImpl(ExpandingArray<1> kernel_size)
      : AvgPool1dImpl(AvgPool1dOptions(kernel_size)) {}
  explicit AvgPool1dImpl(const AvgPool1dOptions& options_) : options(options_) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AvgPool1dOptions options;
};
EMBER_MODULE(AvgPool1d);

class EMBER_API AdaptiveAvgPool1dImpl : public Cloneable<AdaptiveAvgPool1dImpl> {
 public:
  void reset() override {}
  explicit AdaptiveAvgPool1dImpl(ExpandingArray<1> output_size)
      : AdaptiveAvgPool1dImpl(AdaptiveAvgPool1dOptions(output_size)) {}
  explicit AdaptiveAvgPool1dImpl(const AdaptiveAvgPool1dOptions& options_) : options(options_) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AdaptiveAvgPool1dOptions options;
};
EMBER_MODULE(AdaptiveAvgPool1d);

class EMBER_API AdaptiveMaxPool1dImpl : public Cloneable<AdaptiveMaxPool1dImpl> {
 public:
  void reset() override {}
  explicit AdaptiveMaxPool1dImpl(ExpandingArray<1> output_size)
      : AdaptiveMaxPool1dImpl(AdaptiveMaxPool1dOptions(output_size)) {}
  explicit AdaptiveMaxPool1dImpl(const AdaptiveMaxPool1dOptions& options_) : options(options_) {}
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AdaptiveMaxPool1dOptions options;
};
EMBER_MODULE(AdaptiveMaxPool1d);

class EMBER_API LPPool1dImpl : public Cloneable<LPPool1dImpl> {
 public:
  void reset() override {}
  explicit LPPool1dImpl(const LPPool1dOptions& options_) : options(options_) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  LPPool1dOptions options;
};
EMBER_MODULE(LPPool1d);

class EMBER_API LPPool2dImpl : public Cloneable<LPPool2dImpl> {
 public:
  void reset() override {}
  explicit LPPool2dImpl(const LPPool2dOptions& options_) : options(options_) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  LPPool2dOptions options;
};
EMBER_MODULE(LPPool2d);

class EMBER_API MaxPool3dImpl : public Cloneable<MaxPool3dImpl> {
 public:
  void reset() override {}
  explicit MaxPool3dImpl(ExpandingArray<3> kernel_size)
      : MaxPool3dImpl(MaxPool3dOptions(kernel_size)) {}
  explicit MaxPool3dImpl(const MaxPool3dOptions& options_) : options(options_) {}
  Tensor forward(const Tensor& input);
  // The output and the flat (d * H + h) * W + w position of each maximum in its volume.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  MaxPool3dOptions options;
};
EMBER_MODULE(MaxPool3d);

class EMBER_API AvgPool3dImpl : public Cloneable<AvgPool3dImpl> {
 public:
  void reset() override {}
  explicit AvgPool3dImpl(ExpandingArray<3> kernel_size)
      : AvgPool3dImpl(AvgPool3dOptions(kernel_size)) {}
  explicit AvgPool3dImpl(const AvgPool3dOptions& options_) : options(options_) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AvgPool3dOptions options;
};
EMBER_MODULE(AvgPool3d);

class EMBER_API AdaptiveAvgPool3dImpl : public Cloneable<AdaptiveAvgPool3dImpl> {
 public:
  void reset() override {}
  explicit AdaptiveAvgPool3dImpl(ExpandingArray<3> output_size)
      : AdaptiveAvgPool3dImpl(AdaptiveAvgPool3dOptions(output_size)) {}
  explicit AdaptiveAvgPool3dImpl(const AdaptiveAvgPool3dOptions& options_) : options(options_) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AdaptiveAvgPool3dOptions options;
};
EMBER_MODULE(AdaptiveAvgPool3d);

class EMBER_API AdaptiveMaxPool3dImpl : public Cloneable<AdaptiveMaxPool3dImpl> {
 public:
  void reset() override {}
  explicit AdaptiveMaxPool3dImpl(ExpandingArray<3> output_size)
      : AdaptiveMaxPool3dImpl(AdaptiveMaxPool3dOptions(output_size)) {}
  explicit AdaptiveMaxPool3dImpl(const AdaptiveMaxPool3dOptions& options_) : options(options_) {}
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AdaptiveMaxPool3dOptions options;
};
EMBER_MODULE(AdaptiveMaxPool3d);

// MaxUnpool1d/2d/3d: input and the indices of the max pool with the same options; output_size
// (spatial sizes, or with N and C in front) picks among the sizes that pool back to the input.
template <size_t D, typename Derived>
class EMBER_API MaxUnpoolImpl : public Cloneable<Derived> {
 public:
  explicit MaxUnpoolImpl(ExpandingArray<D> kernel_size)
      : MaxUnpoolImpl(MaxUnpoolOptions<D>(kernel_size)) {}
  explicit MaxUnpoolImpl(const MaxUnpoolOptions<D>& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
  void pretty_print(std::ostream& stream) const override;
  MaxUnpoolOptions<D> options;
};

class EMBER_API MaxUnpool1dImpl : public MaxUnpoolImpl<1, MaxUnpool1dImpl> {
 public:
  using MaxUnpoolImpl<1, MaxUnpool1dImpl>::MaxUnpoolImpl;
};
EMBER_MODULE(MaxUnpool1d);
class EMBER_API MaxUnpool2dImpl : public MaxUnpoolImpl<2, MaxUnpool2dImpl> {
 public:
  using MaxUnpoolImpl<2, MaxUnpool2dImpl>::MaxUnpoolImpl;
};
EMBER_MODULE(MaxUnpool2d);
class EMBER_API MaxUnpool3dImpl : public MaxUnpoolImpl<3, MaxUnpool3dImpl> {
 public:
  using MaxUnpoolImpl<3, MaxUnpool3dImpl>::MaxUnpoolImpl;
};
EMBER_MODULE(MaxUnpool3d);

// Defined once, in src/nn/unpooling.cpp.
extern template class MaxUnpoolImpl<1, MaxUnpool1dImpl>;
extern template class MaxUnpoolImpl<2, MaxUnpool2dImpl>;
extern template class MaxUnpoolImpl<3, MaxUnpool3dImpl>;

class EMBER_API FractionalMaxPool2dImpl : public Cloneable<FractionalMaxPool2dImpl> {
 public:
  explicit FractionalMaxPool2dImpl(ExpandingArray<2> kernel_size)
      : FractionalMaxPool2dImpl(FractionalMaxPool2dOptions(kernel_size)) {}
  explicit FractionalMaxPool2dImpl(FractionalMaxPool2dOptions options_);
  void reset() override;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  FractionalMaxPool2dOptions options;
  Tensor _random_samples;  // a buffer when the options fix the samples
};
EMBER_MODULE(FractionalMaxPool2d);

class EMBER_API FractionalMaxPool3dImpl : public Cloneable<FractionalMaxPool3dImpl> {
 public:
  explicit FractionalMaxPool3dImpl(ExpandingArray<3> kernel_size)
      : FractionalMaxPool3dImpl(FractionalMaxPool3dOptions(kernel_size)) {}
  explicit FractionalMaxPool3dImpl(FractionalMaxPool3dOptions options_);
  void reset() override;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  FractionalMaxPool3dOptions options;
  Tensor _random_samples;
};
EMBER_MODULE(FractionalMaxPool3d);

}  // namespace ember::nn
