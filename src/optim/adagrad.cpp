// Adagrad: torch.optim.Adagrad's single-tensor update, in place under no_grad on any device.
#include "ember/optim/adagrad.h"

#include "optim/step_loop.h"

namespace ember::optim {

AdagradOptions::AdagradOptions(double lr) : lr_(lr) {}

std::unique_ptr<OptimizerOptions> AdagradOptions::clone() const {
  return std::make_unique<AdagradOptions>(*this);
}

void AdagradOptions::validate() const {
  EMBER_CHECK(lr() >= 0, ValueError, "Invalid learning rate: ", lr());
  EMBER_CHECK(lr_decay() >= 0, ValueError, "Invalid lr_decay value: ", lr_decay());
  EMBER_CHECK(weight_decay() >= 0, ValueError, "Invalid weight_decay value: ", weight_decay());
  EMBER_CHECK(initial_accumulator_value() >= 0, ValueError,
              "Invalid initial_accumulator_value value: ", initial_accumulator_value());
  EMBER_CHECK(eps() >= 0, ValueError, "Invalid epsilon value: ", eps());
}

OptionValues AdagradOptions::values() const {
  return {{"lr", lr()},
          {"lr_decay", lr_decay()},
          {"weight_decay", weight_decay()},
          {"initial_accumulator_value", initial_accumulator_value()},
          {"eps", eps()},
          {"maximize", maximize() ? 1.0 : 0.0}};
}

void AdagradOptions::set_values(const std::map<std::string, double>& v) {
  lr(detail::option_value(v, "lr", type_name()));
  lr_decay(detail::option_value(v, "lr_decay", type_name()));
  weight_decay(detail::option_value(v, "weight_decay", type_name()));
  initial_accumulator_value(detail::option_value(v, "initial_accumulator_value", type_name()));
  eps(detail::option_value(v, "eps", type_name()));
  maximize(detail::option_value(v, "maximize", type_name()) != 0);
}

std::unique_ptr<OptimizerParamState> AdagradParamState::clone() const {
  auto s = std::make_unique<AdagradParamState>();
  s->step(step());
  if (sum().defined()) s->sum(sum().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> AdagradParamState::tensors() const {
  return {{"step", detail::step_scalar(step())}, {"sum", sum()}};
}

void AdagradParamState::load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
                             const std::string& prefix) {
  detail::check_known_state(tensors, {"step", "sum"}, prefix);
  step(detail::state_step(tensors, "step", prefix));
  sum(detail::state_like_param(tensors, "sum", param, prefix));
}

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions defaults)
    : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
              std::move(defaults)) {}

Adagrad::Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdagradOptions>(defaults)) {
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdagradOptions&>(group.options());
    for (auto& p : group.params()) {
      auto st = std::make_unique<AdagradParamState>();
      st->sum(full_like(p, o.initial_accumulator_value()));
      state_[p.unsafeGetTensorImpl()] = std::move(st);
    }
  }
}

std::unique_ptr<OptimizerParamState> Adagrad::make_param_state() const {
  return std::make_unique<AdagradParamState>();
}

Tensor Adagrad::step(LossClosure closure) {
  return detail::step_each_param<AdagradOptions, AdagradParamState>(
      param_groups_, state_, closure,
      [](Tensor& p, const AdagradOptions& o, AdagradParamState& st) {
        // A parameter added by add_param_group after construction starts here.
        if (!st.sum().defined()) st.sum(full_like(p, o.initial_accumulator_value()));
        st.step(st.step() + 1);
        const Tensor grad = detail::effective_grad(p, o.maximize(), o.weight_decay());
        const double clr = o.lr() / (1 + static_cast<double>(st.step() - 1) * o.lr_decay());
        st.sum().add_(grad * grad);
        p.add_(grad / st.sum().sqrt().add_(o.eps()), -clr);
      });
}

}  // namespace ember::optim
