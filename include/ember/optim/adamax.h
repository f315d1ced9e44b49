#pragma once
// Adamax (Kingma & Ba), Adam with the infinity norm, torch.optim.Adamax (1.13):
//   g = (maximize ? -grad : grad) + weight_decay * p
//   m = beta1 * m + (1 - beta1) * g;   u = max(beta2 * u, |g| + eps)
//   p -= lr / (1 - beta1^t) * m / u
#include <tuple>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API AdamaxOptions : public OptimizerOptions {
 public:
  AdamaxOptions(double lr = 2e-3);  // NOLINT: implicit as in libtorch
  EMBER_ARG(double, lr);
  using Betas = std::tuple<double, double>;
  EMBER_ARG(Betas, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, maximize) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override;
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  const char* type_name() const override { return "AdamaxOptions"; }
  void validate() const override;
  OptionValues values() const override;
  void set_values(const std::map<std::string, double>& values) override;
};

class EMBER_API AdamaxParamState : public OptimizerParamState {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, exp_avg);
  EMBER_ARG(Tensor, exp_inf);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  void load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
            const std::string& prefix) override;
};

class EMBER_API Adamax : public Optimizer {
 public:
  explicit Adamax(std::vector<Tensor> params, AdamaxOptions defaults = {});
  explicit Adamax(std::vector<OptimizerParamGroup> param_groups, AdamaxOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
