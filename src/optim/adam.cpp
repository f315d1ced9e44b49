// Adam: torch.optim.Adam's single-tensor update from in-place primitives, so it runs on any
// device; the AdamW variant shares adam_update().
#include "ember/optim/adam.h"

#include <cmath>

#include "ember/ops.h"
#include "optim/adam_update.h"

namespace ember::optim {

namespace detail {

void validate_adam_options(double lr, double beta1, double beta2, double eps, double weight_decay) {
  EMBER_CHECK(lr >= 0, ValueError, "Invalid learning rate: ", lr);
  EMBER_CHECK(eps >= 0, ValueError, "Invalid epsilon value: ", eps);
  EMBER_CHECK(beta1 >= 0 && beta1 < 1, ValueError, "Invalid beta parameter at index 0: ", beta1,
              " (betas must lie in [0, 1))");
  EMBER_CHECK(beta2 >= 0 && beta2 < 1, ValueError, "Invalid beta parameter at index 1: ", beta2,
              " (betas must lie in [0, 1))");
  EMBER_CHECK(weight_decay >= 0, ValueError, "Invalid weight_decay value: ", weight_decay);
}

void adam_update(Tensor& param, const Tensor& raw_grad, AdamParamState& st, double lr, double beta1,
                 double beta2, double eps, double weight_decay, bool amsgrad, bool maximize,
                 bool decoupled) {
  const Tensor grad_in = maximize ? raw_grad.neg() : raw_grad;
  if (!st.exp_avg().defined()) {
    st.exp_avg(zeros_like(param));
    st.exp_avg_sq(zeros_like(param));
  }
  if (amsgrad && !st.max_exp_avg_sq().defined()) st.max_exp_avg_sq(zeros_like(param));
  st.step(st.step() + 1);

  const double step = static_cast<double>(st.step());
  const double bias_correction1 = 1 - std::pow(beta1, step);
  const double bias_correction2 = 1 - std::pow(beta2, step);
  const double step_size = lr / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);
  if (!amsgrad &&
      fused_adam_cpu(param, grad_in, st.exp_avg(), st.exp_avg_sq(),
                     AdamStepConstants{beta1, beta2, -step_size * bias_correction2_sqrt,
                                       eps * bias_correction2_sqrt, weight_decay, lr, decoupled})) {
    return;
  }

  Tensor grad = grad_in;
  if (weight_decay != 0) {
    if (decoupled) {
      param.mul_(1 - lr * weight_decay);
    } else {
      grad = grad.add(param, weight_decay);
    }
  }
  Tensor& exp_avg = st.exp_avg();
  Tensor& exp_avg_sq = st.exp_avg_sq();
  exp_avg.mul_(beta1).add_(grad, 1 - beta1);
  exp_avg_sq.mul_(beta2).add_(grad.mul(grad), 1 - beta2);

  const Tensor* second = &exp_avg_sq;
  if (amsgrad) {
    Tensor& max_sq = st.max_exp_avg_sq();
    max_sq.copy_(maximum(max_sq, exp_avg_sq));
    second = &max_sq;
  }
  // PyTorch computes m / (sqrt(v) / c + eps) with c = sqrt(1 - beta2^t); the same quantity as
  // c * m / (sqrt(v) + eps * c) saves one pass over the parameter per step.
  Tensor denom = second->sqrt();
  denom.add_(eps * bias_correction2_sqrt);
  param.add_(exp_avg.div(denom), -step_size * bias_correction2_sqrt);
}

}  // namespace detail

AdamOptions::AdamOptions(double lr) : lr_(lr) {}

std::unique_ptr<OptimizerOptions> AdamOptions::clone() const {
  return std::make_unique<AdamOptions>(*this);
}

void AdamOptions::validate() const {
  detail::validate_adam_options(*this);
}

OptionValues AdamOptions::values() const {
  return detail::adam_option_values(*this);
}

void AdamOptions::set_values(const std::map<std::string, double>& v) {
  detail::set_adam_option_values(*this, v);
}

std::unique_ptr<OptimizerParamState> AdamParamState::clone() const {
  auto s = std::make_unique<AdamParamState>();
  s->step(step());
  if (exp_avg().defined()) s->exp_avg(exp_avg().clone());
  if (exp_avg_sq().defined()) s->exp_avg_sq(exp_avg_sq().clone());
  if (max_exp_avg_sq().defined()) s->max_exp_avg_sq(max_exp_avg_sq().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> AdamParamState::tensors() const {
  std::vector<std::pair<std::string, Tensor>> out;
  out.emplace_back("step", scalar_tensor(step(), TensorOptions().dtype(kInt64)));
  if (exp_avg().defined()) out.emplace_back("exp_avg", exp_avg());
  if (exp_avg_sq().defined()) out.emplace_back("exp_avg_sq", exp_avg_sq());
  if (max_exp_avg_sq().defined()) out.emplace_back("max_exp_avg_sq", max_exp_avg_sq());
  return out;
}

void AdamParamState::load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
                          const std::string& prefix) {
  detail::check_known_state(tensors, {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}, prefix);
  step(detail::state_step(tensors, "step", prefix));
  exp_avg(detail::state_like_param(tensors, "exp_avg", param, prefix));
  exp_avg_sq(detail::state_like_param(tensors, "exp_avg_sq", param, prefix));
  max_exp_avg_sq(detail::state_like_param(tensors, "max_exp_avg_sq", param, prefix,
                                          /*required=*/false));
}

Adam::Adam(std::vector<Tensor> params, AdamOptions defaults)
    : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
           std::move(defaults)) {}

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamOptions>(defaults)) {}

std::unique_ptr<OptimizerParamState> Adam::make_param_state() const {
  return std::make_unique<AdamParamState>();
}

Tensor Adam::step(LossClosure closure) {
  return detail::adam_step<AdamOptions>(param_groups_, state_, closure, /*decoupled=*/false);
}

}  // namespace ember::optim
