// Adamax: torch.optim.Adamax's single-tensor update, in place under no_grad on any device.
#include "ember/optim/adamax.h"

#include <cmath>

#include "optim/adam_update.h"
#include "optim/step_loop.h"

namespace ember::optim {

AdamaxOptions::AdamaxOptions(double lr) : lr_(lr) {}

std::unique_ptr<OptimizerOptions> AdamaxOptions::clone() const {
  return std::make_unique<AdamaxOptions>(*this);
}

void AdamaxOptions::validate() const {
  detail::validate_adam_options(lr(), std::get<0>(betas()), std::get<1>(betas()), eps(),
                                weight_decay());
}

OptionValues AdamaxOptions::values() const {
  return {{"lr", lr()},   {"beta1", std::get<0>(betas())},  {"beta2", std::get<1>(betas())},
          {"eps", eps()}, {"weight_decay", weight_decay()}, {"maximize", maximize() ? 1.0 : 0.0}};
}

void AdamaxOptions::set_values(const std::map<std::string, double>& v) {
  lr(detail::option_value(v, "lr", type_name()));
  betas({detail::option_value(v, "beta1", type_name()),
         detail::option_value(v, "beta2", type_name())});
  eps(detail::option_value(v, "eps", type_name()));
  weight_decay(detail::option_value(v, "weight_decay", type_name()));
  maximize(detail::option_value(v, "maximize", type_name()) != 0);
}

std::unique_ptr<OptimizerParamState> AdamaxParamState::clone() const {
  auto s = std::make_unique<AdamaxParamState>();
  s->step(step());
  if (exp_avg().defined()) s->exp_avg(exp_avg().clone());
  if (exp_inf().defined()) s->exp_inf(exp_inf().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> AdamaxParamState::tensors() const {
  return {{"step", detail::step_scalar(step())}, {"exp_avg", exp_avg()}, {"exp_inf", exp_inf()}};
}

void AdamaxParamState::load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
                            const std::string& prefix) {
  detail::check_known_state(tensors, {"step", "exp_avg", "exp_inf"}, prefix);
  step(detail::state_step(tensors, "step", prefix));
  exp_avg(detail::state_like_param(tensors, "exp_avg", param, prefix));
  exp_inf(detail::state_like_param(tensors, "exp_inf", param, prefix));
}

Adamax::Adamax(std::vector<Tensor> params, AdamaxOptions defaults)
    : Adamax(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
             std::move(defaults)) {}

Adamax::Adamax(std::vector<OptimizerParamGroup> param_groups, AdamaxOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamaxOptions>(defaults)) {}

std::unique_ptr<OptimizerParamState> Adamax::make_param_state() const {
  return std::make_unique<AdamaxParamState>();
}

Tensor Adamax::step(LossClosure closure) {
  return detail::step_each_param<AdamaxOptions, AdamaxParamState>(
      param_groups_, state_, closure, [](Tensor& p, const AdamaxOptions& o, AdamaxParamState& st) {
        if (!st.exp_avg().defined()) {
          st.exp_avg(zeros_like(p));
          st.exp_inf(zeros_like(p));
        }
        st.step(st.step() + 1);
        const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
        const Tensor grad = detail::effective_grad(p, o.maximize(), o.weight_decay());
        st.exp_avg().mul_(beta1).add_(grad, 1 - beta1);
        st.exp_inf().copy_(maximum(st.exp_inf().mul_(beta2), grad.abs().add_(o.eps())));
        const double clr = o.lr() / (1 - std::pow(beta1, static_cast<double>(st.step())));
        p.add_(st.exp_avg() / st.exp_inf(), -clr);
      });
}

}  // namespace ember::optim
