#pragma once
// Stochastic gradient descent with momentum, dampening, Nesterov momentum and weight decay,
// the update of torch.optim.SGD:
//   g = -g (maximize); d = g + weight_decay * p
//   buf = d (first step), else momentum * buf + (1 - dampening) * d
//   d = nesterov ? d + momentum * buf : buf        (when momentum != 0)
//   p -= lr * d
#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API SGDOptions : public OptimizerOptions {
 public:
  SGDOptions(double lr);
  EMBER_ARG(double, lr);
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(double, dampening) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, nesterov) = false;
  EMBER_ARG(bool, maximize) = false;  // ascend: the gradient is negated first

 public:
  std::unique_ptr<OptimizerOptions> clone() const override;
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  const char* type_name() const override { return "SGDOptions"; }
  void validate() const override;
  OptionValues values() const override;
  void set_values(const std::map<std::string, double>& values) override;
};

class EMBER_API SGDParamState : public OptimizerParamState {
  EMBER_ARG(Tensor, momentum_buffer);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  void load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
            const std::string& prefix) override;
};

class EMBER_API SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, SGDOptions defaults);
  SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
