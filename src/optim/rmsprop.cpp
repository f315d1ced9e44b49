// RMSprop: torch.optim.RMSprop's single-tensor update, in place under no_grad on the parameter's
// device.
#include "ember/optim/rmsprop.h"

#include "ember/autograd.h"
#include "ember/ops.h"
#include "optim/fused_cpu.h"

namespace ember::optim {

RMSpropOptions::RMSpropOptions(double lr) : lr_(lr) {}

std::unique_ptr<OptimizerOptions> RMSpropOptions::clone() const {
  return std::make_unique<RMSpropOptions>(*this);
}

void RMSpropOptions::validate() const {
  EMBER_CHECK(lr() >= 0, ValueError, "Invalid learning rate: ", lr());
  EMBER_CHECK(eps() >= 0, ValueError, "Invalid epsilon value: ", eps());
  EMBER_CHECK(momentum() >= 0, ValueError, "Invalid momentum value: ", momentum());
  EMBER_CHECK(weight_decay() >= 0, ValueError, "Invalid weight_decay value: ", weight_decay());
  EMBER_CHECK(alpha() >= 0, ValueError, "Invalid alpha value: ", alpha());
}

OptionValues RMSpropOptions::values() const {
  return {{"lr", lr()},
          {"alpha", alpha()},
          {"eps", eps()},
          {"weight_decay", weight_decay()},
          {"momentum", momentum()},
          {"centered", centered() ? 1.0 : 0.0},
          {"maximize", maximize() ? 1.0 : 0.0}};
}

void RMSpropOptions::set_values(const std::map<std::string, double>& v) {
  lr(detail::option_value(v, "lr", type_name()));
  alpha(detail::option_value(v, "alpha", type_name()));
  eps(detail::option_value(v, "eps", type_name()));
  weight_decay(detail::option_value(v, "weight_decay", type_name()));
  momentum(detail::option_value(v, "momentum", type_name()));
  centered(detail::option_value(v, "centered", type_name()) != 0);
  maximize(detail::option_value(v, "maximize", type_name()) != 0);
}

std::unique_ptr<OptimizerParamState> RMSpropParamState::clone() const {
  auto s = std::make_unique<RMSpropParamState>();
  s->step(step());
  if (square_avg().defined()) s->square_avg(square_avg().clone());
  if (momentum_buffer().defined()) s->momentum_buffer(momentum_buffer().clone());
  if (grad_avg().defined()) s->grad_avg(grad_avg().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> RMSpropParamState::tensors() const {
  std::vector<std::pair<std::string, Tensor>> out{{"step", scalar_tensor(step(), kLong)},
                                                  {"square_avg", square_avg()}};
  if (momentum_buffer().defined()) out.emplace_back("momentum_buffer", momentum_buffer());
  if (grad_avg().defined()) out.emplace_back("grad_avg", grad_avg());
  return out;
}

void RMSpropParamState::load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
                             const std::string& prefix) {
  detail::check_known_state(tensors, {"step", "square_avg", "momentum_buffer", "grad_avg"}, prefix);
  step(detail::state_step(tensors, "step", prefix));
  square_avg(detail::state_like_param(tensors, "square_avg", param, prefix));
  momentum_buffer(detail::state_like_param(tensors, "momentum_buffer", param, prefix,
                                           /*required=*/false));
  grad_avg(detail::state_like_param(tensors, "grad_avg", param, prefix, /*required=*/false));
}

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions defaults)
    : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
              std::move(defaults)) {}

RMSprop::RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RMSpropOptions>(defaults)) {}

std::unique_ptr<OptimizerParamState> RMSprop::make_param_state() const {
  return std::make_unique<RMSpropParamState>();
}

Tensor RMSprop::step(LossClosure closure) {
  Tensor loss;
  if (closure) {
    EnableGradGuard enable_grad;
    loss = closure();
  }
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const RMSpropOptions&>(group.options());
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& slot = state_[p.unsafeGetTensorImpl()];
      if (!slot) {
        auto fresh = std::make_unique<RMSpropParamState>();
        fresh->square_avg(zeros_like(p));
        if (o.momentum() > 0) fresh->momentum_buffer(zeros_like(p));
        if (o.centered()) fresh->grad_avg(zeros_like(p));
        slot = std::move(fresh);
      }
      auto& st = static_cast<RMSpropParamState&>(*slot);
      st.step(st.step() + 1);
      if (detail::fused_rmsprop_cpu(
              p, p.grad(), st.square_avg(), st.grad_avg(), st.momentum_buffer(),
              {o.lr(), o.alpha(), o.eps(), o.weight_decay(), o.momentum(), o.maximize()})) {
        continue;
      }
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      st.square_avg().mul_(o.alpha()).add_(grad * grad, 1 - o.alpha());
      Tensor avg;
      if (o.centered()) {
        st.grad_avg().mul_(o.alpha()).add_(grad, 1 - o.alpha());
        avg = (st.square_avg() - st.grad_avg() * st.grad_avg()).sqrt_();
      } else {
        avg = st.square_avg().sqrt();
      }
      avg.add_(o.eps());
      if (o.momentum() > 0) {
        st.momentum_buffer().mul_(o.momentum()).add_(grad / avg);
        p.add_(st.momentum_buffer(), -o.lr());
      } else {
        p.add_(grad / avg, -o.lr());
      }
    }
  }
  return loss;
}

}  // namespace ember::optim
