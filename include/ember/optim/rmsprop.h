#pragma once
// RMSprop, the update of torch.optim.RMSprop (1.13):
//   g = (maximize ? -grad : grad) + weight_decay * p
//   square_avg = alpha * square_avg + (1 - alpha) * g^2
//   centered: grad_avg = alpha * grad_avg + (1 - alpha) * g; avg = sqrt(square_avg - grad_avg^2)
//   else:     avg = sqrt(square_avg)
//   avg += eps
//   momentum > 0: buf = momentum * buf + g / avg; p -= lr * buf
//   else:         p -= lr * g / avg
#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API RMSpropOptions : public OptimizerOptions {
 public:
  RMSpropOptions(double lr = 1e-2);  // NOLINT: implicit as in libtorch
  EMBER_ARG(double, lr);
  EMBER_ARG(double, alpha) = 0.99;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(bool, centered) = false;
  EMBER_ARG(bool, maximize) = false;  // ascend: the gradient is negated first

 public:
  std::unique_ptr<OptimizerOptions> clone() const override;
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  const char* type_name() const override { return "RMSpropOptions"; }
  void validate() const override;
  OptionValues values() const override;
  void set_values(const std::map<std::string, double>& values) override;
};

class EMBER_API RMSpropParamState : public OptimizerParamState {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, square_avg);
  EMBER_ARG(Tensor, momentum_buffer);  // with momentum > 0
  EMBER_ARG(Tensor, grad_avg);         // when centered

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  void load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
            const std::string& prefix) override;
};

class EMBER_API RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {});
  RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
