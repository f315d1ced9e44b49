#pragma once
// Adam (Kingma & Ba) with L2 weight decay added to the gradient and the AMSGrad variant, the
// update of torch.optim.Adam:
//   g = -g (maximize); g += weight_decay * p
//   m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g * g
//   vmax = max(vmax, v) (amsgrad)
//   p -= lr / (1 - beta1^t) * m / (sqrt(v or vmax) / sqrt(1 - beta2^t) + eps)
#include <tuple>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API AdamOptions : public OptimizerOptions {
 public:
  AdamOptions(double lr = 1e-3);
  EMBER_ARG(double, lr);
  using Betas = std::tuple<double, double>;
  EMBER_ARG(Betas, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, amsgrad) = false;
  EMBER_ARG(bool, maximize) = false;  // ascend: the gradient is negated first

 public:
  std::unique_ptr<OptimizerOptions> clone() const override;
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  const char* type_name() const override { return "AdamOptions"; }
  void validate() const override;
  OptionValues values() const override;
  void set_values(const std::map<std::string, double>& values) override;
};

// Shared by Adam and AdamW.
class EMBER_API AdamParamState : public OptimizerParamState {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, exp_avg);
  EMBER_ARG(Tensor, exp_avg_sq);
  EMBER_ARG(Tensor, max_exp_avg_sq);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  void load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
            const std::string& prefix) override;
};

class EMBER_API Adam : public Optimizer {
 public:
  explicit Adam(std::vector<Tensor> params, AdamOptions defaults = {});
  explicit Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
