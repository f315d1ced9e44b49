#pragma once
// Adadelta (Zeiler), torch.optim.Adadelta (1.13):
//   g = (maximize ? -grad : grad) + weight_decay * p
//   s = rho * s + (1 - rho) * g * g
//   delta = sqrt(a + eps) / sqrt(s + eps) * g
//   a = rho * a + (1 - rho) * delta * delta;   p -= lr * delta
#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API AdadeltaOptions : public OptimizerOptions {
 public:
  AdadeltaOptions(double lr = 1.0);  // NOLINT: implicit as in libtorch
  EMBER_ARG(double, lr);
  EMBER_ARG(double, rho) = 0.9;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, maximize) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override;
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  const char* type_name() const override { return "AdadeltaOptions"; }
  void validate() const override;
  OptionValues values() const override;
  void set_values(const std::map<std::string, double>& values) override;
};

class EMBER_API AdadeltaParamState : public OptimizerParamState {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, square_avg);
  EMBER_ARG(Tensor, acc_delta);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  void load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
            const std::string& prefix) override;
};

class EMBER_API Adadelta : public Optimizer {
 public:
  explicit Adadelta(std::vector<Tensor> params, AdadeltaOptions defaults = {});
  explicit Adadelta(std::vector<OptimizerParamGroup> param_groups, AdadeltaOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
