#pragma once
// Loss modules: forward(input, target) with the options fixed at construction.
#include "ember/nn/module.h"
#include "ember/nn/options/loss.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API CrossEntropyLossImpl : public Module {
 public:
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  CrossEntropyLossOptions options;
  Tensor weight;  // buffer, when given
};
EMBER_MODULE(CrossEntropyLoss);

class EMBER_API NLLLossImpl : public Module {
 public:
  explicit NLLLossImpl(const NLLLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  NLLLossOptions options;
  Tensor weight;
};
EMBER_MODULE(NLLLoss);

class EMBER_API MSELossImpl : public Module {
 public:
  explicit MSELossImpl(const MSELossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  MSELossOptions options;
};
EMBER_MODULE(MSELoss);

class EMBER_API L1LossImpl : public Module {
 public:
  explicit L1LossImpl(const L1LossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  L1LossOptions options;
};
EMBER_MODULE(L1Loss);

class EMBER_API BCEWithLogitsLossImpl : public Module {
 public:
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  BCEWithLogitsLossOptions options;
  Tensor weight, pos_weight;  // buffers, when given
};
EMBER_MODULE(BCEWithLogitsLoss);

}  // namespace ember::nn
