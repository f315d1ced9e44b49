#pragma once
// Linear (y = x W^T + b) and Flatten.
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/linear.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API LinearImpl : public Cloneable<LinearImpl> {
 public:
  // Creates the parameters (the constructor calls it; clone() too).
  void reset() override;
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);
  // PyTorch's default: kaiming_uniform_(a = sqrt(5)) weight, U(-1/sqrt(in), 1/sqrt(in)) bias.
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  LinearOptions options;
  Tensor weight;  // [out_features, in_features]
  Tensor bias;    // [out_features], undefined without bias
};
EMBER_MODULE(Linear);

class EMBER_API BilinearImpl : public Cloneable<BilinearImpl> {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : BilinearImpl(BilinearOptions(in1_features, in2_features, out_features)) {}
  explicit BilinearImpl(const BilinearOptions& options);
  // Creates the parameters (the constructor calls it; clone() too).
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input1, const Tensor& input2);
  void pretty_print(std::ostream& stream) const override;

  BilinearOptions options;
  Tensor weight;  // [out_features, in1_features, in2_features]
  Tensor bias;    // [out_features], undefined without bias
};
EMBER_MODULE(Bilinear);

class EMBER_API FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  void reset() override {}
  explicit FlattenImpl(const FlattenOptions& options = {});
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  FlattenOptions options;
};
EMBER_MODULE(Flatten);

class EMBER_API UnflattenImpl : public Cloneable<UnflattenImpl> {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes)
      : UnflattenImpl(UnflattenOptions(dim, std::move(sizes))) {}
  explicit UnflattenImpl(const UnflattenOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  UnflattenOptions options;
};
EMBER_MODULE(Unflatten);

// Returns its input; a placeholder where a layer is optional.
class EMBER_API IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input) { return input; }
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Identity);

}  // namespace ember::nn
