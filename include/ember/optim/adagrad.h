#pragma once
// Adagrad (Duchi et al.), torch.optim.Adagrad / torch::optim::Adagrad (1.13):
//   g = (maximize ? -grad : grad) + weight_decay * p
//   clr = lr / (1 + (t - 1) * lr_decay)
//   sum += g * g;   p -= clr * g / (sqrt(sum) + eps)
// As in libtorch, the constructor creates every parameter's state (sum filled with
// initial_accumulator_value, step 0), so a state dict lists all parameters from the start.
#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API AdagradOptions : public OptimizerOptions {
 public:
  AdagradOptions(double lr = 1e-2);  // NOLINT: implicit as in libtorch
  EMBER_ARG(double, lr);
  EMBER_ARG(double, lr_decay) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, initial_accumulator_value) = 0;
  EMBER_ARG(double, eps) = 1e-10;
  EMBER_ARG(bool, maximize) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override;
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  const char* type_name() const override { return "AdagradOptions"; }
  void validate() const override;
  OptionValues values() const override;
  void set_values(const std::map<std::string, double>& values) override;
};

class EMBER_API AdagradParamState : public OptimizerParamState {
  EMBER_ARG(Tensor, sum);
  EMBER_ARG(int64_t, step) = 0;

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  void load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
            const std::string& prefix) override;
};

class EMBER_API Adagrad : public Optimizer {
 public:
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {});
  explicit Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
