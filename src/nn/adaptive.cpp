// AdaptiveLogSoftmaxWithLoss. The rows of each tail cluster are found with nonzero (the cluster
// sizes are data: one host read per cluster, as PyTorch), projected by that cluster's two Linear
// layers, and their target log-probabilities added with index_add; the head's log-softmax then
// adds each row's shortlist class or cluster entry. Everything is differentiable ops.
#include "ember/nn/modules/adaptive.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "ember/nn/init.h"
#include "ember/ops.h"

namespace ember::nn {

AdaptiveLogSoftmaxWithLossImpl::AdaptiveLogSoftmaxWithLossImpl(
    AdaptiveLogSoftmaxWithLossOptions options_)
    : options(std::move(options_)) {
  reset();
}

void AdaptiveLogSoftmaxWithLossImpl::reset() {
  const std::vector<int64_t>& c = options.cutoffs();
  const int64_t n = options.n_classes();
  const bool valid = !c.empty() && std::is_sorted(c.begin(), c.end()) && c.front() > 0 &&
                     c.back() <= n - 1 && std::set<int64_t>(c.begin(), c.end()).size() == c.size();
  EMBER_CHECK(valid, ValueError,
              "cutoffs should be a sequence of unique, positive integers sorted in an increasing "
              "order, where each value is between 1 and n_classes-1");
  cutoffs = c;
  cutoffs.push_back(n);
  shortlist_size = cutoffs[0];
  n_clusters = static_cast<int64_t>(cutoffs.size()) - 1;
  head_size = shortlist_size + n_clusters;
  head = register_module(
      "head", Linear(LinearOptions(options.in_features(), head_size).bias(options.head_bias())));
  tail = register_module("tail", ModuleList());
  for (int64_t i = 0; i < n_clusters; ++i) {
    const auto hidden = static_cast<int64_t>(
        std::floor(options.in_features() / std::pow(options.div_value(), i + 1)));
    const int64_t out = cutoffs[i + 1] - cutoffs[i];
    tail->push_back(Sequential(Linear(LinearOptions(options.in_features(), hidden).bias(false)),
                               Linear(LinearOptions(hidden, out).bias(false))));
  }
}

void AdaptiveLogSoftmaxWithLossImpl::reset_parameters() {
  head->reset_parameters();
  for (const auto& cluster : *tail) {
    for (const auto& layer : cluster->children()) layer->as<Linear>()->reset_parameters();
  }
}

ASMoutput AdaptiveLogSoftmaxWithLossImpl::forward(const Tensor& input_, const Tensor& target_) {
  const int64_t targ_dim = target_.dim();
  if (targ_dim == 1) {
    EMBER_CHECK(input_.dim() == 2, ValueError,
                "1D target tensor expects 2D input tensors, but found inputs with size ",
                input_.sizes());
    EMBER_CHECK(input_.size(0) == target_.size(0), ValueError,
                "Input and target should have the same size in the batch dimension.");
  } else if (targ_dim == 0) {
    EMBER_CHECK(input_.dim() == 1, ValueError,
                "0D target tensor expects 1D input tensors, but found inputs with size ",
                input_.sizes());
  } else {
    EMBER_CHECK(false, ValueError, "0D or 1D target tensor expected, multi-target not supported");
  }
  const bool batched = targ_dim > 0;
  const Tensor input = batched ? input_ : input_.unsqueeze(0);
  const Tensor target = batched ? target_ : target_.unsqueeze(0);
  const int64_t batch = target.size(0);

  Tensor output = zeros({batch}, TensorOptions(input.dtype()).device(input.device()));
  Tensor gather_inds = target.to(kLong);
  int64_t used_rows = 0;
  for (int64_t i = 0; i <= n_clusters; ++i) {
    const int64_t low = i == 0 ? 0 : cutoffs[i - 1], high = cutoffs[i];
    const Tensor in_cluster = logical_and(ge(target, low), lt(target, high));
    const Tensor rows = nonzero(in_cluster).reshape({-1});
    if (rows.numel() == 0) continue;
    used_rows += rows.numel();
    if (i == 0) continue;  // shortlist classes are read from the head below
    const Tensor relative = target.index_select(0, rows).to(kLong) - low;
    const Tensor cluster_output =
        tail[i - 1]->as<Sequential>()->forward(input.index_select(0, rows));
    gather_inds = where(in_cluster, Scalar(shortlist_size + i - 1), gather_inds);
    const Tensor local = log_softmax(cluster_output, 1).gather(1, relative.unsqueeze(1)).squeeze(1);
    output = output.index_add(0, rows, local);
  }
  EMBER_CHECK(used_rows == batch, ValueError, "Target values should be in [0, ",
              options.n_classes() - 1, "], but values in range [", target.min().item<double>(),
              ", ", target.max().item<double>(), "] were found. ");
  const Tensor head_logprob = log_softmax(head(input), 1);
  output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze(1);
  const double loss = (-output).mean().item<double>();
  return ASMoutput(batched ? output : output.squeeze(0), loss);
}

Tensor AdaptiveLogSoftmaxWithLossImpl::_get_full_log_prob(const Tensor& input,
                                                          const Tensor& head_output) {
  const Tensor head_logprob = log_softmax(head_output, 1);
  std::vector<Tensor> parts = {head_logprob.narrow(1, 0, shortlist_size)};
  for (int64_t i = 0; i < n_clusters; ++i) {
    const Tensor cluster_logprob = log_softmax(tail[i]->as<Sequential>()->forward(input), 1);
    parts.push_back(cluster_logprob + head_logprob.narrow(1, shortlist_size + i, 1));
  }
  return cat(parts, 1);
}

Tensor AdaptiveLogSoftmaxWithLossImpl::log_prob(const Tensor& input) {
  return _get_full_log_prob(input, head(input));
}

Tensor AdaptiveLogSoftmaxWithLossImpl::predict(const Tensor& input) {
  return argmax(log_prob(input), 1);
}

void AdaptiveLogSoftmaxWithLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::AdaptiveLogSoftmaxWithLoss";
}

}  // namespace ember::nn
