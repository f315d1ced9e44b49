// NAdam: torch.optim.NAdam's single-tensor update, in place under no_grad on any device.
#include "ember/optim/nadam.h"

#include <cmath>

#include "optim/adam_update.h"
#include "optim/fused_cpu.h"
#include "optim/step_loop.h"

namespace ember::optim {

NAdamOptions::NAdamOptions(double lr) : lr_(lr) {}

std::unique_ptr<OptimizerOptions> NAdamOptions::clone() const {
  return std::make_unique<NAdamOptions>(*this);
}

void NAdamOptions::validate() const {
  detail::validate_adam_options(lr(), std::get<0>(betas()), std::get<1>(betas()), eps(),
                                weight_decay());
  EMBER_CHECK(momentum_decay() >= 0, ValueError,
              "Invalid momentum_decay value: ", momentum_decay());
}

OptionValues NAdamOptions::values() const {
  return {{"lr", lr()},   {"beta1", std::get<0>(betas())},  {"beta2", std::get<1>(betas())},
          {"eps", eps()}, {"weight_decay", weight_decay()}, {"momentum_decay", momentum_decay()}};
}

void NAdamOptions::set_values(const std::map<std::string, double>& v) {
  lr(detail::option_value(v, "lr", type_name()));
  betas({detail::option_value(v, "beta1", type_name()),
         detail::option_value(v, "beta2", type_name())});
  eps(detail::option_value(v, "eps", type_name()));
  weight_decay(detail::option_value(v, "weight_decay", type_name()));
  momentum_decay(detail::option_value(v, "momentum_decay", type_name()));
}

std::unique_ptr<OptimizerParamState> NAdamParamState::clone() const {
  auto s = std::make_unique<NAdamParamState>();
  s->step(step());
  s->mu_product(mu_product());
  if (exp_avg().defined()) s->exp_avg(exp_avg().clone());
  if (exp_avg_sq().defined()) s->exp_avg_sq(exp_avg_sq().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> NAdamParamState::tensors() const {
  return {{"step", detail::step_scalar(step())},
          {"mu_product", detail::float_scalar(mu_product())},
          {"exp_avg", exp_avg()},
          {"exp_avg_sq", exp_avg_sq()}};
}

void NAdamParamState::load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
                           const std::string& prefix) {
  detail::check_known_state(tensors, {"step", "mu_product", "exp_avg", "exp_avg_sq"}, prefix);
  step(detail::state_step(tensors, "step", prefix));
  mu_product(detail::round_to_float(detail::state_scalar(tensors, "mu_product", prefix)));
  exp_avg(detail::state_like_param(tensors, "exp_avg", param, prefix));
  exp_avg_sq(detail::state_like_param(tensors, "exp_avg_sq", param, prefix));
}

NAdam::NAdam(std::vector<Tensor> params, NAdamOptions defaults)
    : NAdam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
            std::move(defaults)) {}

NAdam::NAdam(std::vector<OptimizerParamGroup> param_groups, NAdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<NAdamOptions>(defaults)) {}

std::unique_ptr<OptimizerParamState> NAdam::make_param_state() const {
  return std::make_unique<NAdamParamState>();
}

Tensor NAdam::step(LossClosure closure) {
  using detail::round_to_float;
  return detail::step_each_param<NAdamOptions, NAdamParamState>(
      param_groups_, state_, closure, [](Tensor& p, const NAdamOptions& o, NAdamParamState& st) {
        if (!st.exp_avg().defined()) {
          st.exp_avg(zeros_like(p));
          st.exp_avg_sq(zeros_like(p));
        }
        st.step(st.step() + 1);
        const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
        const double t = static_cast<double>(st.step());
        const double bias_correction2 = 1 - std::pow(beta2, t);
        const double mu = beta1 * (1. - 0.5 * std::pow(0.96, t * o.momentum_decay()));
        const double mu_next = beta1 * (1. - 0.5 * std::pow(0.96, (t + 1) * o.momentum_decay()));
        // float32 products, as PyTorch's float32 mu_product tensor computes them.
        st.mu_product(round_to_float(st.mu_product() * round_to_float(mu)));
        const double mu_product_next = round_to_float(
            round_to_float(st.mu_product() * round_to_float(mu)) * round_to_float(mu_next));
        const double grad_scale = -o.lr() * (1. - mu) / (1. - st.mu_product());
        const double avg_scale = -o.lr() * mu_next / (1. - mu_product_next);
        if (detail::fused_nadam_cpu(p, p.grad(), st.exp_avg(), st.exp_avg_sq(),
                                    {beta1, beta2, bias_correction2, o.eps(), o.weight_decay(),
                                     grad_scale, avg_scale})) {
          return;
        }
        const Tensor grad = detail::effective_grad(p, /*maximize=*/false, o.weight_decay());
        st.exp_avg().mul_(beta1).add_(grad, 1 - beta1);
        st.exp_avg_sq().mul_(beta2).add_(grad * grad, 1 - beta2);
        const Tensor denom = st.exp_avg_sq().div(bias_correction2).sqrt().add_(o.eps());
        p.add_(grad / denom, grad_scale);
        p.add_(st.exp_avg() / denom, avg_scale);
      });
}

}  // namespace ember::optim
