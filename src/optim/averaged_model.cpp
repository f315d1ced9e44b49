// AveragedModel's update: torch.optim.swa_utils.AveragedModel.update_parameters.
#include "ember/optim/averaged_model.h"

#include "ember/ops.h"

namespace ember::optim::swa_utils::detail {

void update_averages(nn::Module& averaged, const nn::Module& model, const AvgFn& avg_fn,
                     bool use_buffers, Tensor& n_averaged) {
  std::vector<Tensor> targets = averaged.parameters();
  std::vector<Tensor> sources = model.parameters();
  if (use_buffers) {
    for (const Tensor& b : averaged.buffers()) targets.push_back(b);
    for (const Tensor& b : model.buffers()) sources.push_back(b);
  }
  EMBER_CHECK(targets.size() == sources.size(), ValueError, "AveragedModel: the model has ",
              sources.size(), " tensors to average but the averaged copy has ", targets.size());
  NoGradGuard no_grad;
  const bool first = n_averaged.item<int64_t>() == 0;
  for (size_t i = 0; i < targets.size(); ++i) {
    const Tensor current = sources[i].detach().to(targets[i].device());
    if (first) {
      targets[i].copy_(current);
    } else if (avg_fn) {
      targets[i].copy_(avg_fn(targets[i].detach(), current, n_averaged));
    } else {
      // The equal-weight average of all updates so far.
      targets[i].copy_(targets[i] + (current - targets[i]) / (n_averaged + 1));
    }
  }
  n_averaged.add_(1);
}

}  // namespace ember::optim::swa_utils::detail
