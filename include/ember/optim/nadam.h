#pragma once
// NAdam (Dozat), torch.optim.NAdam (1.13): Adam with Nesterov momentum whose momentum
// coefficient mu_t warms up with momentum_decay:
//   g = grad + weight_decay * p
//   mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay));   prod_t = mu_1 * ... * mu_t
//   m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g * g
//   d = sqrt(v / (1 - beta2^t)) + eps
//   p -= lr * (1 - mu_t) / (1 - prod_t) * g / d + lr * mu_{t+1} / (1 - prod_t * mu_{t+1}) * m / d
// mu_product is kept rounded to float32, as PyTorch's float32 state tensor holds it.
#include <tuple>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API NAdamOptions : public OptimizerOptions {
 public:
  NAdamOptions(double lr = 2e-3);  // NOLINT: implicit as in libtorch
  EMBER_ARG(double, lr);
  using Betas = std::tuple<double, double>;
  EMBER_ARG(Betas, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum_decay) = 4e-3;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override;
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  const char* type_name() const override { return "NAdamOptions"; }
  void validate() const override;
  OptionValues values() const override;
  void set_values(const std::map<std::string, double>& values) override;
};

class EMBER_API NAdamParamState : public OptimizerParamState {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(double, mu_product) = 1;
  EMBER_ARG(Tensor, exp_avg);
  EMBER_ARG(Tensor, exp_avg_sq);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  void load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
            const std::string& prefix) override;
};

class EMBER_API NAdam : public Optimizer {
 public:
  explicit NAdam(std::vector<Tensor> params, NAdamOptions defaults = {});
  explicit NAdam(std::vector<OptimizerParamGroup> param_groups, NAdamOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
