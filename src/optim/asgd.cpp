// ASGD: torch.optim.ASGD's single-tensor update, in place under no_grad on any device.
#include "ember/optim/asgd.h"

#include <algorithm>
#include <cmath>

#include "optim/step_loop.h"

namespace ember::optim {

ASGDOptions::ASGDOptions(double lr) : lr_(lr) {}

std::unique_ptr<OptimizerOptions> ASGDOptions::clone() const {
  return std::make_unique<ASGDOptions>(*this);
}

void ASGDOptions::validate() const {
  EMBER_CHECK(lr() >= 0, ValueError, "Invalid learning rate: ", lr());
  EMBER_CHECK(weight_decay() >= 0, ValueError, "Invalid weight_decay value: ", weight_decay());
}

OptionValues ASGDOptions::values() const {
  return {{"lr", lr()},
          {"lambd", lambd()},
          {"alpha", alpha()},
          {"t0", t0()},
          {"weight_decay", weight_decay()},
          {"maximize", maximize() ? 1.0 : 0.0}};
}

void ASGDOptions::set_values(const std::map<std::string, double>& v) {
  lr(detail::option_value(v, "lr", type_name()));
  lambd(detail::option_value(v, "lambd", type_name()));
  alpha(detail::option_value(v, "alpha", type_name()));
  t0(detail::option_value(v, "t0", type_name()));
  weight_decay(detail::option_value(v, "weight_decay", type_name()));
  maximize(detail::option_value(v, "maximize", type_name()) != 0);
}

std::unique_ptr<OptimizerParamState> ASGDParamState::clone() const {
  auto s = std::make_unique<ASGDParamState>();
  s->step(step()).eta(eta()).mu(mu());
  if (ax().defined()) s->ax(ax().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> ASGDParamState::tensors() const {
  return {{"step", detail::step_scalar(step())},
          {"eta", detail::float_scalar(eta())},
          {"mu", detail::float_scalar(mu())},
          {"ax", ax()}};
}

void ASGDParamState::load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
                          const std::string& prefix) {
  detail::check_known_state(tensors, {"step", "eta", "mu", "ax"}, prefix);
  step(detail::state_step(tensors, "step", prefix));
  eta(detail::round_to_float(detail::state_scalar(tensors, "eta", prefix)));
  mu(detail::round_to_float(detail::state_scalar(tensors, "mu", prefix)));
  ax(detail::state_like_param(tensors, "ax", param, prefix));
}

ASGD::ASGD(std::vector<Tensor> params, ASGDOptions defaults)
    : ASGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
           std::move(defaults)) {}

ASGD::ASGD(std::vector<OptimizerParamGroup> param_groups, ASGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<ASGDOptions>(defaults)) {}

std::unique_ptr<OptimizerParamState> ASGD::make_param_state() const {
  return std::make_unique<ASGDParamState>();
}

Tensor ASGD::step(LossClosure closure) {
  using detail::round_to_float;
  return detail::step_each_param<ASGDOptions, ASGDParamState>(
      param_groups_, state_, closure, [](Tensor& p, const ASGDOptions& o, ASGDParamState& st) {
        if (!st.ax().defined()) {
          st.ax(zeros_like(p));
          st.eta(round_to_float(o.lr())).mu(1);
        }
        st.step(st.step() + 1);
        const double t = static_cast<double>(st.step());
        const Tensor grad = detail::effective_grad(p, o.maximize(), o.weight_decay());
        p.mul_(1 - o.lambd() * st.eta());
        p.add_(grad, -st.eta());
        if (st.mu() != 1) {
          st.ax().add_(p.sub(st.ax()).mul(st.mu()));
        } else {
          st.ax().copy_(p);
        }
        st.eta(round_to_float(o.lr() / std::pow(1 + o.lambd() * o.lr() * t, o.alpha())));
        st.mu(round_to_float(1 / std::max(1.0, t - o.t0())));
      });
}

}  // namespace ember::optim
