#pragma once
// RAdam (Liu et al.), torch.optim.RAdam (1.13): Adam whose adaptive term is switched on once
// the variance of its estimate is tractable (rho_t > 5), with the rectification factor r_t:
//   g = grad + weight_decay * p
//   m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g * g
//   rho_inf = 2 / (1 - beta2) - 1;   rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
//   rho_t > 5: p -= lr * m / (1 - beta1^t) * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r_t
//   else:      p -= lr * m / (1 - beta1^t)
#include <tuple>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API RAdamOptions : public OptimizerOptions {
 public:
  RAdamOptions(double lr = 1e-3);  // NOLINT: implicit as in libtorch
  EMBER_ARG(double, lr);
  using Betas = std::tuple<double, double>;
  EMBER_ARG(Betas, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override;
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  const char* type_name() const override { return "RAdamOptions"; }
  void validate() const override;
  OptionValues values() const override;
  void set_values(const std::map<std::string, double>& values) override;
};

class EMBER_API RAdamParamState : public OptimizerParamState {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, exp_avg);
  EMBER_ARG(Tensor, exp_avg_sq);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  void load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
            const std::string& prefix) override;
};

class EMBER_API RAdam : public Optimizer {
 public:
  explicit RAdam(std::vector<Tensor> params, RAdamOptions defaults = {});
  explicit RAdam(std::vector<OptimizerParamGroup> param_groups, RAdamOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
