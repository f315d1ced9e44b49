// update_bn's set-up and clean-up: the model's BatchNorms, their statistics and momenta.
#include "ember/optim/update_bn.h"

#include "ember/nn/modules/batchnorm.h"
#include "ember/ops.h"

namespace ember::optim::swa_utils::detail {

BatchNormMomenta reset_batchnorms(nn::Module& model) {
  BatchNormMomenta momenta;
  for (const auto& module : model.modules()) {
    auto* bn = dynamic_cast<nn::BatchNormImplBase*>(module.get());
    if (bn == nullptr || !bn->running_mean.defined()) continue;
    NoGradGuard no_grad;
    bn->running_mean.copy_(ember::zeros_like(bn->running_mean));
    bn->running_var.copy_(ember::ones_like(bn->running_var));
    bn->num_batches_tracked.zero_();
    momenta.entries.emplace_back(module, bn->options.momentum());
    bn->options.momentum(std::nullopt);  // a cumulative average over the pass
  }
  return momenta;
}

void restore_momenta(const BatchNormMomenta& momenta) {
  for (const auto& [module, momentum] : momenta.entries) {
    static_cast<nn::BatchNormImplBase&>(*module).options.momentum(momentum);
  }
}

}  // namespace ember::optim::swa_utils::detail
