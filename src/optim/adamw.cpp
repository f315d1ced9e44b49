// AdamW: Adam with decoupled weight decay (torch.optim.AdamW), sharing Adam's update.
#include "ember/optim/adamw.h"

#include "ember/autograd.h"
#include "ember/ops.h"
#include "optim/adam_update.h"

namespace ember::optim {

AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}

std::unique_ptr<OptimizerOptions> AdamWOptions::clone() const {
  return std::make_unique<AdamWOptions>(*this);
}

void AdamWOptions::validate() const {
  detail::validate_adam_options(lr(), std::get<0>(betas()), std::get<1>(betas()), eps(),
                                weight_decay());
}

OptionValues AdamWOptions::values() const {
  return {{"lr", lr()},   {"beta1", std::get<0>(betas())},  {"beta2", std::get<1>(betas())},
          {"eps", eps()}, {"weight_decay", weight_decay()}, {"amsgrad", amsgrad() ? 1.0 : 0.0}};
}

void AdamWOptions::set_values(const std::map<std::string, double>& v) {
  lr(detail::option_value(v, "lr", type_name()));
  betas({detail::option_value(v, "beta1", type_name()),
         detail::option_value(v, "beta2", type_name())});
  eps(detail::option_value(v, "eps", type_name()));
  weight_decay(detail::option_value(v, "weight_decay", type_name()));
  amsgrad(detail::option_value(v, "amsgrad", type_name()) != 0);
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions defaults)
    : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
            std::move(defaults)) {}

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamWOptions>(defaults)) {}

std::unique_ptr<OptimizerParamState> AdamW::make_param_state() const {
  return std::make_unique<AdamParamState>();
}

Tensor AdamW::step(LossClosure closure) {
  Tensor loss;
  if (closure) {
    EnableGradGuard enable_grad;
    loss = closure();
  }
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdamWOptions&>(group.options());
    for (auto& p : group.params()) {
      const Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      auto& slot = state_[p.unsafeGetTensorImpl()];
      if (!slot) slot = std::make_unique<AdamParamState>();
      detail::adam_update(p, grad, static_cast<AdamParamState&>(*slot), o.lr(),
                          std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(), o.weight_decay(),
                          o.amsgrad(), /*decoupled=*/true);
    }
  }
  return loss;
}

}  // namespace ember::optim
