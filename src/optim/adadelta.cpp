// Adadelta: torch.optim.Adadelta's single-tensor update, in place under no_grad on any device.
#include "ember/optim/adadelta.h"

#include "optim/step_loop.h"

namespace ember::optim {

AdadeltaOptions::AdadeltaOptions(double lr) : lr_(lr) {}

std::unique_ptr<OptimizerOptions> AdadeltaOptions::clone() const {
  return std::make_unique<AdadeltaOptions>(*this);
}

void AdadeltaOptions::validate() const {
  EMBER_CHECK(lr() >= 0, ValueError, "Invalid learning rate: ", lr());
  EMBER_CHECK(rho() >= 0 && rho() <= 1, ValueError, "Invalid rho value: ", rho());
  EMBER_CHECK(eps() >= 0, ValueError, "Invalid epsilon value: ", eps());
  EMBER_CHECK(weight_decay() >= 0, ValueError, "Invalid weight_decay value: ", weight_decay());
}

OptionValues AdadeltaOptions::values() const {
  return {{"lr", lr()},
          {"rho", rho()},
          {"eps", eps()},
          {"weight_decay", weight_decay()},
          {"maximize", maximize() ? 1.0 : 0.0}};
}

void AdadeltaOptions::set_values(const std::map<std::string, double>& v) {
  lr(detail::option_value(v, "lr", type_name()));
  rho(detail::option_value(v, "rho", type_name()));
  eps(detail::option_value(v, "eps", type_name()));
  weight_decay(detail::option_value(v, "weight_decay", type_name()));
  maximize(detail::option_value(v, "maximize", type_name()) != 0);
}

std::unique_ptr<OptimizerParamState> AdadeltaParamState::clone() const {
  auto s = std::make_unique<AdadeltaParamState>();
  s->step(step());
  if (square_avg().defined()) s->square_avg(square_avg().clone());
  if (acc_delta().defined()) s->acc_delta(acc_delta().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> AdadeltaParamState::tensors() const {
  return {{"step", detail::step_scalar(step())},
          {"square_avg", square_avg()},
          {"acc_delta", acc_delta()}};
}

void AdadeltaParamState::load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
                              const std::string& prefix) {
  detail::check_known_state(tensors, {"step", "square_avg", "acc_delta"}, prefix);
  step(detail::state_step(tensors, "step", prefix));
  square_avg(detail::state_like_param(tensors, "square_avg", param, prefix));
  acc_delta(detail::state_like_param(tensors, "acc_delta", param, prefix));
}

Adadelta::Adadelta(std::vector<Tensor> params, AdadeltaOptions defaults)
    : Adadelta(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
               std::move(defaults)) {}

Adadelta::Adadelta(std::vector<OptimizerParamGroup> param_groups, AdadeltaOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdadeltaOptions>(defaults)) {}

std::unique_ptr<OptimizerParamState> Adadelta::make_param_state() const {
  return std::make_unique<AdadeltaParamState>();
}

Tensor Adadelta::step(LossClosure closure) {
  return detail::step_each_param<AdadeltaOptions, AdadeltaParamState>(
      param_groups_, state_, closure,
      [](Tensor& p, const AdadeltaOptions& o, AdadeltaParamState& st) {
        if (!st.square_avg().defined()) {
          st.square_avg(zeros_like(p));
          st.acc_delta(zeros_like(p));
        }
        st.step(st.step() + 1);
        const double rho = o.rho();
        const Tensor grad = detail::effective_grad(p, o.maximize(), o.weight_decay());
        st.square_avg().mul_(rho).add_(grad * grad, 1 - rho);
        const Tensor std_dev = st.square_avg().add(o.eps()).sqrt_();
        const Tensor delta = st.acc_delta().add(o.eps()).sqrt_().div_(std_dev).mul_(grad);
        st.acc_delta().mul_(rho).add_(delta * delta, 1 - rho);
        p.add_(delta, -o.lr());
      });
}

}  // namespace ember::optim
