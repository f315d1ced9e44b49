#pragma once
// AdaptiveLogSoftmaxWithLoss: the efficient softmax of Grave et al. for large vocabularies, as
// libtorch 1.13's: a head over the frequent classes and one entry per tail cluster, and a small
// two-layer projection per cluster.
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/options/adaptive.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

// The per-example target log-probabilities and their mean negative (libtorch's ASMoutput: the
// loss is a number; backpropagate through `output`, e.g. `(-out.output).mean()`).
struct EMBER_API ASMoutput {
  ASMoutput(Tensor output_, double loss_) : output(std::move(output_)), loss(loss_) {}
  Tensor output;
  double loss;
};

class EMBER_API AdaptiveLogSoftmaxWithLossImpl : public Cloneable<AdaptiveLogSoftmaxWithLossImpl> {
 public:
  AdaptiveLogSoftmaxWithLossImpl(int64_t in_features, int64_t n_classes,
                                 std::vector<int64_t> cutoffs)
      : AdaptiveLogSoftmaxWithLossImpl(
            AdaptiveLogSoftmaxWithLossOptions(in_features, n_classes, std::move(cutoffs))) {}
  explicit AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions options_);
  // input [N, in_features] with target [N], or [in_features] with a 0-dim target.
  ASMoutput forward(const Tensor& input, const Tensor& target);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // Every class's log-probability, [N, n_classes], given the head's output for input.
  Tensor _get_full_log_prob(const Tensor& input, const Tensor& head_output);
  Tensor log_prob(const Tensor& input);
  // The most likely class of each row.
  Tensor predict(const Tensor& input);

  AdaptiveLogSoftmaxWithLossOptions options;
  std::vector<int64_t> cutoffs;  // options' cutoffs followed by n_classes
  int64_t shortlist_size = 0;
  int64_t n_clusters = 0;
  int64_t head_size = 0;
  Linear head = nullptr;
  ModuleList tail;
};
EMBER_MODULE(AdaptiveLogSoftmaxWithLoss);

}  // namespace ember::nn
