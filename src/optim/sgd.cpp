// SGD: torch.optim.SGD's update, in place under no_grad so it runs on any device.
#include "ember/optim/sgd.h"

#include "ember/autograd.h"
#include "ember/ops.h"
#include "optim/fused_cpu.h"

namespace ember::optim {

namespace {

// The one-pass float32 CPU step (momentum buffer created in `st` on the first step); false,
// with nothing done, where it does not apply.
bool step_fused(Tensor& p, const SGDOptions& o, SGDParamState& st) {
  auto plain = [&](const Tensor& t) {
    return t.is_cpu() && t.dtype() == kFloat && t.is_contiguous() && t.numel() == p.numel();
  };
  if (!plain(p) || !plain(p.grad())) return false;
  Tensor no_buffer;
  Tensor* buf = &no_buffer;
  bool first = false;
  if (o.momentum() != 0) {
    first = !st.momentum_buffer().defined();
    if (first) st.momentum_buffer(empty_like(p));  // filled by the loop
    buf = &st.momentum_buffer();
  }
  return detail::fused_sgd_cpu(
      p, p.grad(), *buf,
      {o.lr(), o.momentum(), o.dampening(), o.weight_decay(), o.nesterov(), o.maximize(), first});
}

}  // namespace

SGDOptions::SGDOptions(double lr) : lr_(lr) {}

std::unique_ptr<OptimizerOptions> SGDOptions::clone() const {
  return std::make_unique<SGDOptions>(*this);
}

void SGDOptions::validate() const {
  EMBER_CHECK(lr() >= 0, ValueError, "Invalid learning rate: ", lr());
  EMBER_CHECK(momentum() >= 0, ValueError, "Invalid momentum value: ", momentum());
  EMBER_CHECK(weight_decay() >= 0, ValueError, "Invalid weight_decay value: ", weight_decay());
  EMBER_CHECK(!nesterov() || (momentum() > 0 && dampening() == 0), ValueError,
              "Nesterov momentum requires a momentum and zero dampening (got momentum ", momentum(),
              ", dampening ", dampening(), ")");
}

OptionValues SGDOptions::values() const {
  return {{"lr", lr()},
          {"momentum", momentum()},
          {"dampening", dampening()},
          {"weight_decay", weight_decay()},
          {"nesterov", nesterov() ? 1.0 : 0.0},
          {"maximize", maximize() ? 1.0 : 0.0}};
}

void SGDOptions::set_values(const std::map<std::string, double>& v) {
  lr(detail::option_value(v, "lr", type_name()));
  momentum(detail::option_value(v, "momentum", type_name()));
  dampening(detail::option_value(v, "dampening", type_name()));
  weight_decay(detail::option_value(v, "weight_decay", type_name()));
  nesterov(detail::option_value(v, "nesterov", type_name()) != 0);
  maximize(detail::option_value(v, "maximize", type_name()) != 0);
}

std::unique_ptr<OptimizerParamState> SGDParamState::clone() const {
  auto s = std::make_unique<SGDParamState>();
  if (momentum_buffer().defined()) s->momentum_buffer(momentum_buffer().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> SGDParamState::tensors() const {
  if (!momentum_buffer().defined()) return {};
  return {{"momentum_buffer", momentum_buffer()}};
}

void SGDParamState::load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
                         const std::string& prefix) {
  detail::check_known_state(tensors, {"momentum_buffer"}, prefix);
  momentum_buffer(detail::state_like_param(tensors, "momentum_buffer", param, prefix,
                                           /*required=*/false));
}

SGD::SGD(std::vector<Tensor> params, SGDOptions defaults)
    : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
          std::move(defaults)) {}

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<SGDOptions>(defaults)) {}

std::unique_ptr<OptimizerParamState> SGD::make_param_state() const {
  return std::make_unique<SGDParamState>();
}

Tensor SGD::step(LossClosure closure) {
  Tensor loss;
  if (closure) {
    EnableGradGuard enable_grad;
    loss = closure();
  }
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    const double momentum = o.momentum();
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      // Every stepped parameter gets a state, without momentum an empty one, as PyTorch keeps
      // {'momentum_buffer': None} for it.
      auto& slot = state_[p.unsafeGetTensorImpl()];
      if (!slot) slot = std::make_unique<SGDParamState>();
      auto& st = static_cast<SGDParamState&>(*slot);
      if (step_fused(p, o, st)) continue;
      const Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      Tensor d_p = o.weight_decay() != 0 ? grad.add(p, o.weight_decay()) : grad;
      if (momentum != 0) {
        Tensor& buf = st.momentum_buffer();
        if (!buf.defined()) {
          // d_p is a temporary already when weight decay or maximize made it; the gradient itself
          // is copied.
          buf = o.weight_decay() != 0 || o.maximize() ? d_p : d_p.clone();
        } else {
          buf.mul_(momentum).add_(d_p, 1 - o.dampening());
        }
        d_p = o.nesterov() ? d_p.add(buf, momentum) : buf;
      }
      p.add_(d_p, -o.lr());
    }
  }
  return loss;
}

}  // namespace ember::optim
