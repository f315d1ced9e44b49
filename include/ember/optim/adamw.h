#pragma once
// AdamW (Loshchilov & Hutter): Adam with decoupled weight decay, torch.optim.AdamW:
//   p *= 1 - lr * weight_decay, then the Adam update without weight decay in the gradient.
#include "ember/optim/adam.h"

namespace ember::optim {

class EMBER_API AdamWOptions : public OptimizerOptions {
 public:
  AdamWOptions(double lr = 1e-3);
  EMBER_ARG(double, lr);
  using Betas = std::tuple<double, double>;
  EMBER_ARG(Betas, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 1e-2;
  EMBER_ARG(bool, amsgrad) = false;
  EMBER_ARG(bool, maximize) = false;  // ascend: the gradient is negated first

 public:
  std::unique_ptr<OptimizerOptions> clone() const override;
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  const char* type_name() const override { return "AdamWOptions"; }
  void validate() const override;
  OptionValues values() const override;
  void set_values(const std::map<std::string, double>& values) override;
};

class EMBER_API AdamW : public Optimizer {
 public:
  explicit AdamW(std::vector<Tensor> params, AdamWOptions defaults = {});
  explicit AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
