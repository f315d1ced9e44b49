#pragma once
// Loss modules: forward(input, target) with the options fixed at construction.
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/loss.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API CrossEntropyLossImpl : public Cloneable<CrossEntropyLossImpl> {
 public:
  void reset() override {}
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  CrossEntropyLossOptions options;
  Tensor weight;  // buffer, when given
};
EMBER_MODULE(CrossEntropyLoss);

class EMBER_API NLLLossImpl : public Cloneable<NLLLossImpl> {
 public:
  void reset() override {}
  explicit NLLLossImpl(const NLLLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  NLLLossOptions options;
  Tensor weight;
};
EMBER_MODULE(NLLLoss);

class EMBER_API MSELossImpl : public Cloneable<MSELossImpl> {
 public:
  void reset() override {}
  explicit MSELossImpl(const MSELossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  MSELossOptions options;
};
EMBER_MODULE(MSELoss);

class EMBER_API L1LossImpl : public Cloneable<L1LossImpl> {
 public:
  void reset() override {}
  explicit L1LossImpl(const L1LossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  L1LossOptions options;
};
EMBER_MODULE(L1Loss);

class EMBER_API BCEWithLogitsLossImpl : public Cloneable<BCEWithLogitsLossImpl> {
 public:
  void reset() override {}
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  BCEWithLogitsLossOptions options;
  Tensor weight, pos_weight;  // buffers, when given
};
EMBER_MODULE(BCEWithLogitsLoss);

class EMBER_API BCELossImpl : public Cloneable<BCELossImpl> {
 public:
  void reset() override {}
  explicit BCELossImpl(const BCELossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  BCELossOptions options;
  Tensor weight;  // buffer, when given
};
EMBER_MODULE(BCELoss);

class EMBER_API SmoothL1LossImpl : public Cloneable<SmoothL1LossImpl> {
 public:
  void reset() override {}
  explicit SmoothL1LossImpl(const SmoothL1LossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  SmoothL1LossOptions options;
};
EMBER_MODULE(SmoothL1Loss);

class EMBER_API KLDivLossImpl : public Cloneable<KLDivLossImpl> {
 public:
  void reset() override {}
  explicit KLDivLossImpl(const KLDivLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  KLDivLossOptions options;
};
EMBER_MODULE(KLDivLoss);

// A loss module over its function: forward(Args...) and libtorch's printout.
#define EMBER_LOSS_MODULE(Name, ...)                                               \
  class EMBER_API Name##Impl : public Cloneable<Name##Impl> {                      \
   public:                                                                         \
    void reset() override {}                                                       \
    explicit Name##Impl(const Name##Options& options_ = {}) : options(options_) {} \
    Tensor forward(__VA_ARGS__);                                                   \
    void pretty_print(std::ostream& stream) const override;                        \
    Name##Options options;                                                         \
  };                                                                               \
  EMBER_MODULE(Name)

EMBER_LOSS_MODULE(HuberLoss, const Tensor& input, const Tensor& target);
EMBER_LOSS_MODULE(SoftMarginLoss, const Tensor& input, const Tensor& target);
EMBER_LOSS_MODULE(MultiLabelSoftMarginLoss, const Tensor& input, const Tensor& target);
EMBER_LOSS_MODULE(MultiLabelMarginLoss, const Tensor& input, const Tensor& target);
EMBER_LOSS_MODULE(HingeEmbeddingLoss, const Tensor& input, const Tensor& target);
EMBER_LOSS_MODULE(MultiMarginLoss, const Tensor& input, const Tensor& target);
EMBER_LOSS_MODULE(PoissonNLLLoss, const Tensor& log_input, const Tensor& target);
EMBER_LOSS_MODULE(MarginRankingLoss, const Tensor& input1, const Tensor& input2,
                  const Tensor& target);
EMBER_LOSS_MODULE(CosineEmbeddingLoss, const Tensor& input1, const Tensor& input2,
                  const Tensor& target);
EMBER_LOSS_MODULE(TripletMarginLoss, const Tensor& anchor, const Tensor& positive,
                  const Tensor& negative);
EMBER_LOSS_MODULE(GaussianNLLLoss, const Tensor& input, const Tensor& target, const Tensor& var);
EMBER_LOSS_MODULE(CTCLoss, const Tensor& log_probs, const Tensor& targets,
                  const Tensor& input_lengths, const Tensor& target_lengths);
EMBER_LOSS_MODULE(TripletMarginWithDistanceLoss, const Tensor& anchor, const Tensor& positive,
                  const Tensor& negative);
#undef EMBER_LOSS_MODULE

}  // namespace ember::nn
