#pragma once
// MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d, AdaptiveMaxPool1d/2d and LPPool1d/2d.
#include <tuple>

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

}  // namespace ember::nn
