// AdamW: Adam with decoupled weight decay (torch.optim.AdamW), sharing Adam's update.
#include "ember/optim/adamw.h"

#include "optim/adam_update.h"

namespace ember::optim {

AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}

std::unique_ptr<OptimizerOptions> AdamWOptions::clone() const {
  return std::make_unique<AdamWOptions>(*this);
}

void AdamWOptions::validate() const {
  detail::validate_adam_options(*this);
}

OptionValues AdamWOptions::values() const {
  return detail::adam_option_values(*this);
}

void AdamWOptions::set_values(const std::map<std::string, double>& v) {
  detail::set_adam_option_values(*this, v);
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
  return detail::adam_step<AdamWOptions>(param_groups_, state_, closure, /*decoupled=*/true);
}

}  // namespace ember::optim
