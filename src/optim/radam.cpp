// RAdam: torch.optim.RAdam's single-tensor update, in place under no_grad on any device.
#include "ember/optim/radam.h"

#include <cmath>

#include "optim/adam_update.h"
#include "optim/fused_cpu.h"
#include "optim/step_loop.h"

namespace ember::optim {

RAdamOptions::RAdamOptions(double lr) : lr_(lr) {}

std::unique_ptr<OptimizerOptions> RAdamOptions::clone() const {
  return std::make_unique<RAdamOptions>(*this);
}

void RAdamOptions::validate() const {
  detail::validate_adam_options(lr(), std::get<0>(betas()), std::get<1>(betas()), eps(),
                                weight_decay());
}

OptionValues RAdamOptions::values() const {
  return {{"lr", lr()},
          {"beta1", std::get<0>(betas())},
          {"beta2", std::get<1>(betas())},
          {"eps", eps()},
          {"weight_decay", weight_decay()}};
}

void RAdamOptions::set_values(const std::map<std::string, double>& v) {
  lr(detail::option_value(v, "lr", type_name()));
  betas({detail::option_value(v, "beta1", type_name()),
         detail::option_value(v, "beta2", type_name())});
  eps(detail::option_value(v, "eps", type_name()));
  weight_decay(detail::option_value(v, "weight_decay", type_name()));
}

std::unique_ptr<OptimizerParamState> RAdamParamState::clone() const {
  auto s = std::make_unique<RAdamParamState>();
  s->step(step());
  if (exp_avg().defined()) s->exp_avg(exp_avg().clone());
  if (exp_avg_sq().defined()) s->exp_avg_sq(exp_avg_sq().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> RAdamParamState::tensors() const {
  return {
      {"step", detail::step_scalar(step())}, {"exp_avg", exp_avg()}, {"exp_avg_sq", exp_avg_sq()}};
}

void RAdamParamState::load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
                           const std::string& prefix) {
  detail::check_known_state(tensors, {"step", "exp_avg", "exp_avg_sq"}, prefix);
  step(detail::state_step(tensors, "step", prefix));
  exp_avg(detail::state_like_param(tensors, "exp_avg", param, prefix));
  exp_avg_sq(detail::state_like_param(tensors, "exp_avg_sq", param, prefix));
}

RAdam::RAdam(std::vector<Tensor> params, RAdamOptions defaults)
    : RAdam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
            std::move(defaults)) {}

RAdam::RAdam(std::vector<OptimizerParamGroup> param_groups, RAdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RAdamOptions>(defaults)) {}

std::unique_ptr<OptimizerParamState> RAdam::make_param_state() const {
  return std::make_unique<RAdamParamState>();
}

Tensor RAdam::step(LossClosure closure) {
  return detail::step_each_param<RAdamOptions, RAdamParamState>(
      param_groups_, state_, closure, [](Tensor& p, const RAdamOptions& o, RAdamParamState& st) {
        if (!st.exp_avg().defined()) {
          st.exp_avg(zeros_like(p));
          st.exp_avg_sq(zeros_like(p));
        }
        st.step(st.step() + 1);
        const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
        const double t = static_cast<double>(st.step());
        const double bias_correction1 = 1 - std::pow(beta1, t);
        const double bias_correction2 = 1 - std::pow(beta2, t);
        // The length of the approximated simple moving average, and its limit.
        const double rho_inf = 2 / (1 - beta2) - 1;
        const double rho_t = rho_inf - 2 * t * std::pow(beta2, t) / bias_correction2;
        const bool rectified = rho_t > 5;
        const double rect = rectified ? std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                                                  ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                                      : 1;
        if (detail::fused_radam_cpu(p, p.grad(), st.exp_avg(), st.exp_avg_sq(),
                                    {beta1, beta2, bias_correction1, std::sqrt(bias_correction2),
                                     o.eps(), o.weight_decay(), o.lr(), rectified, rect})) {
          return;
        }
        const Tensor grad = detail::effective_grad(p, /*maximize=*/false, o.weight_decay());
        st.exp_avg().mul_(beta1).add_(grad, 1 - beta1);
        st.exp_avg_sq().mul_(beta2).add_(grad * grad, 1 - beta2);
        const Tensor corrected = st.exp_avg() / bias_correction1;
        if (rectified) {
          const Tensor adaptive =
              std::sqrt(bias_correction2) / st.exp_avg_sq().sqrt().add_(o.eps());
          p.add_(corrected * o.lr() * adaptive * rect, -1.0);
        } else {
          p.add_(corrected * o.lr(), -1.0);
        }
      });
}

}  // namespace ember::optim
