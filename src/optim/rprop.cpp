// Rprop: torch.optim.Rprop's single-tensor update, in place under no_grad on any device.
#include "ember/optim/rprop.h"

#include "optim/step_loop.h"

namespace ember::optim {

RpropOptions::RpropOptions(double lr) : lr_(lr) {}

std::unique_ptr<OptimizerOptions> RpropOptions::clone() const {
  return std::make_unique<RpropOptions>(*this);
}

void RpropOptions::validate() const {
  const double etaminus = std::get<0>(etas()), etaplus = std::get<1>(etas());
  EMBER_CHECK(lr() >= 0, ValueError, "Invalid learning rate: ", lr());
  EMBER_CHECK(0 < etaminus && etaminus < 1 && 1 < etaplus, ValueError,
              "Invalid eta values: ", etaminus, ", ", etaplus);
}

OptionValues RpropOptions::values() const {
  return {{"lr", lr()},
          {"etaminus", std::get<0>(etas())},
          {"etaplus", std::get<1>(etas())},
          {"step_size_min", std::get<0>(step_sizes())},
          {"step_size_max", std::get<1>(step_sizes())},
          {"maximize", maximize() ? 1.0 : 0.0}};
}

void RpropOptions::set_values(const std::map<std::string, double>& v) {
  lr(detail::option_value(v, "lr", type_name()));
  etas({detail::option_value(v, "etaminus", type_name()),
        detail::option_value(v, "etaplus", type_name())});
  step_sizes({detail::option_value(v, "step_size_min", type_name()),
              detail::option_value(v, "step_size_max", type_name())});
  maximize(detail::option_value(v, "maximize", type_name()) != 0);
}

std::unique_ptr<OptimizerParamState> RpropParamState::clone() const {
  auto s = std::make_unique<RpropParamState>();
  s->step(step());
  if (prev().defined()) s->prev(prev().clone());
  if (step_size().defined()) s->step_size(step_size().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> RpropParamState::tensors() const {
  return {{"step", detail::step_scalar(step())}, {"prev", prev()}, {"step_size", step_size()}};
}

void RpropParamState::load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
                           const std::string& prefix) {
  detail::check_known_state(tensors, {"step", "prev", "step_size"}, prefix);
  step(detail::state_step(tensors, "step", prefix));
  prev(detail::state_like_param(tensors, "prev", param, prefix));
  step_size(detail::state_like_param(tensors, "step_size", param, prefix));
}

Rprop::Rprop(std::vector<Tensor> params, RpropOptions defaults)
    : Rprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
            std::move(defaults)) {}

Rprop::Rprop(std::vector<OptimizerParamGroup> param_groups, RpropOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RpropOptions>(defaults)) {}

std::unique_ptr<OptimizerParamState> Rprop::make_param_state() const {
  return std::make_unique<RpropParamState>();
}

Tensor Rprop::step(LossClosure closure) {
  return detail::step_each_param<RpropOptions, RpropParamState>(
      param_groups_, state_, closure, [](Tensor& p, const RpropOptions& o, RpropParamState& st) {
        if (!st.prev().defined()) {
          st.prev(zeros_like(p));
          st.step_size(full_like(p, o.lr()));
        }
        st.step(st.step() + 1);
        const double etaminus = std::get<0>(o.etas()), etaplus = std::get<1>(o.etas());
        Tensor grad = detail::effective_grad(p, o.maximize(), /*weight_decay=*/0);
        const Tensor sign = grad.mul(st.prev()).sign();
        const Tensor flipped = sign.lt(0);
        Tensor factor = full_like(sign, 1.0);
        factor.masked_fill_(sign.gt(0), etaplus).masked_fill_(flipped, etaminus);
        st.step_size().mul_(factor).clamp_(std::get<0>(o.step_sizes()),
                                           std::get<1>(o.step_sizes()));
        // After a sign flip the element does not move, and the next step sees no previous sign.
        grad = grad.masked_fill(flipped, 0);
        p.add_(grad.sign() * st.step_size(), -1.0);
        st.prev().copy_(grad);
      });
}

}  // namespace ember::optim
