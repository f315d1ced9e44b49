#pragma once
// Options of AdaptiveLogSoftmaxWithLoss (libtorch's AdaptiveLogSoftmaxWithLossOptions).
#include <cstdint>
#include <vector>

#include "ember/nn/arg.h"

namespace ember::nn {

struct AdaptiveLogSoftmaxWithLossOptions {
  AdaptiveLogSoftmaxWithLossOptions(int64_t in_features, int64_t n_classes,
                                    std::vector<int64_t> cutoffs)  // NOLINT: implicit as libtorch
      : in_features_(in_features), n_classes_(n_classes), cutoffs_(std::move(cutoffs)) {}
  EMBER_ARG(int64_t, in_features);
  EMBER_ARG(int64_t, n_classes);
  // Where the frequency classes end: [0, c0) is the head's shortlist, [c0, c1) the first tail
  // cluster, ..., [c_last, n_classes) the last.
  EMBER_ARG(std::vector<int64_t>, cutoffs);
  // Each tail cluster's hidden size is in_features / div_value^(cluster + 1).
  EMBER_ARG(double, div_value) = 4.;
  EMBER_ARG(bool, head_bias) = false;
};

}  // namespace ember::nn
