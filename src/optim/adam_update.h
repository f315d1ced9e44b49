#pragma once
// What Adam and AdamW share (adam.cpp, adamw.cpp): the per-parameter update, the options checks
// and their OptionValues form, and the step over all parameter groups. Templates take the
// options type, AdamOptions or AdamWOptions, which have the same fields.
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/autograd.h"
#include "ember/optim/adam.h"

namespace ember::optim::detail {

// One update of `param` with moments in `state` (created on the first call); decoupled selects
// AdamW's weight decay (p *= 1 - lr * wd) over Adam's (g += wd * p). Caller holds NoGradGuard.
void adam_update(Tensor& param, const Tensor& grad, AdamParamState& state, double lr, double beta1,
                 double beta2, double eps, double weight_decay, bool amsgrad, bool maximize,
                 bool decoupled);

// Constants of one Adam step, computed once per parameter in double.
struct AdamStepConstants {
  double beta1, beta2;
  double step_scale;  // -lr / (1 - beta1^t) * sqrt(1 - beta2^t)
  double eps_scaled;  // eps * sqrt(1 - beta2^t)
  double weight_decay;
  double lr;
  bool decoupled;
};

// The same update as adam_update's composite in one pass over contiguous float32 CPU tensors
// (adam_fused_cpu.cpp). Returns false, doing nothing, when the tensors do not qualify; the
// composite stays the reference and covers every other device and dtype.
bool fused_adam_cpu(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                    const AdamStepConstants& k);

// Checks the options Adam and AdamW share, naming the bad value.
void validate_adam_options(double lr, double beta1, double beta2, double eps, double weight_decay);

template <typename Options>
void validate_adam_options(const Options& o) {
  validate_adam_options(o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(),
                        o.weight_decay());
}

template <typename Options>
OptionValues adam_option_values(const Options& o) {
  return {{"lr", o.lr()},
          {"beta1", std::get<0>(o.betas())},
          {"beta2", std::get<1>(o.betas())},
          {"eps", o.eps()},
          {"weight_decay", o.weight_decay()},
          {"amsgrad", o.amsgrad() ? 1.0 : 0.0},
          {"maximize", o.maximize() ? 1.0 : 0.0}};
}

template <typename Options>
void set_adam_option_values(Options& o, const std::map<std::string, double>& v) {
  o.lr(option_value(v, "lr", o.type_name()));
  o.betas({option_value(v, "beta1", o.type_name()), option_value(v, "beta2", o.type_name())});
  o.eps(option_value(v, "eps", o.type_name()));
  o.weight_decay(option_value(v, "weight_decay", o.type_name()));
  o.amsgrad(option_value(v, "amsgrad", o.type_name()) != 0);
  o.maximize(option_value(v, "maximize", o.type_name()) != 0);
}

// Optimizer::step for Adam (decoupled = false) and AdamW (decoupled = true).
template <typename Options>
Tensor adam_step(std::vector<OptimizerParamGroup>& groups,
                 std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state,
                 const LossClosure& closure, bool decoupled) {
  Tensor loss;
  if (closure) {
    EnableGradGuard enable_grad;
    loss = closure();
  }
  NoGradGuard no_grad;
  for (auto& group : groups) {
    const auto& o = static_cast<const Options&>(group.options());
    for (auto& p : group.params()) {
      const Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      auto& slot = state[p.unsafeGetTensorImpl()];
      if (!slot) slot = std::make_unique<AdamParamState>();
      adam_update(p, grad, static_cast<AdamParamState&>(*slot), o.lr(), std::get<0>(o.betas()),
                  std::get<1>(o.betas()), o.eps(), o.weight_decay(), o.amsgrad(), o.maximize(),
                  decoupled);
    }
  }
  return loss;
}

}  // namespace ember::optim::detail
