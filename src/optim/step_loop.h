#pragma once
// What the optimizers added after SGD/Adam/RMSprop share (adagrad.cpp, radam.cpp, ...): the
// step() loop over every parameter that has a gradient, the gradient as the update sees it, and
// reading 0-dim scalars back from a state dict.
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/autograd.h"
#include "ember/ops.h"
#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

// Optimizer::step: runs `closure` with grad enabled (returning its loss), then, under no_grad,
// calls update(param, options, state) for each parameter with a gradient; `state` is created by
// State's default constructor on the parameter's first step.
template <typename Options, typename State, typename Update>
Tensor step_each_param(std::vector<OptimizerParamGroup>& groups,
                       std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& states,
                       const LossClosure& closure, Update&& update) {
  Tensor loss;
  if (closure) {
    EnableGradGuard enable_grad;
    loss = closure();
  }
  NoGradGuard no_grad;
  for (auto& group : groups) {
    const auto& options = static_cast<const Options&>(group.options());
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& slot = states[p.unsafeGetTensorImpl()];
      if (!slot) slot = std::make_unique<State>();
      update(p, options, static_cast<State&>(*slot));
    }
  }
  return loss;
}

// The gradient the update uses: negated when maximizing, plus weight_decay * param (L2).
inline Tensor effective_grad(const Tensor& param, bool maximize, double weight_decay) {
  Tensor grad = maximize ? param.grad().neg() : param.grad();
  if (weight_decay != 0) grad = grad.add(param, weight_decay);
  return grad;
}

// A one-value state entry (NAdam's mu_product, ASGD's eta and mu) as a double.
inline double state_scalar(const std::map<std::string, Tensor>& tensors, const std::string& name,
                           const std::string& prefix) {
  auto it = tensors.find(name);
  EMBER_CHECK(it != tensors.end(), ValueError, "optimizer state dict is missing '", prefix, name,
              "'");
  EMBER_CHECK(it->second.numel() == 1, ValueError, "optimizer state '", prefix, name,
              "' must hold one value, got ", it->second.numel());
  return it->second.item<double>();
}

// PyTorch 1.13 keeps these scalars in float32 tensors (torch.tensor(1.)), so each update of
// them rounds to float; Ember rounds the same way to follow its trajectory exactly.
inline double round_to_float(double v) {
  return static_cast<double>(static_cast<float>(v));
}

inline Tensor float_scalar(double v) {
  return scalar_tensor(v, TensorOptions().dtype(kFloat32));
}

inline Tensor step_scalar(int64_t step) {
  return scalar_tensor(step, TensorOptions().dtype(kInt64));
}

}  // namespace ember::optim::detail
