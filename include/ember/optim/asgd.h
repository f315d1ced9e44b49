#pragma once
// Averaged SGD (Polyak & Juditsky), torch.optim.ASGD (1.13): SGD with a decaying step eta_t
// and a running average `ax` of the iterates that starts once t exceeds t0:
//   g = (maximize ? -grad : grad) + weight_decay * p
//   p *= 1 - lambd * eta;   p -= eta * g
//   ax = (mu == 1) ? p : ax + mu * (p - ax)
//   eta = lr / (1 + lambd * lr * t)^alpha;   mu = 1 / max(1, t - t0)
// eta and mu are kept rounded to float32, as PyTorch's float32 state tensors hold them.
#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API ASGDOptions : public OptimizerOptions {
 public:
  ASGDOptions(double lr = 1e-2);  // NOLINT: implicit as in libtorch
  EMBER_ARG(double, lr);
  EMBER_ARG(double, lambd) = 1e-4;
  EMBER_ARG(double, alpha) = 0.75;
  EMBER_ARG(double, t0) = 1e6;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, maximize) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override;
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  const char* type_name() const override { return "ASGDOptions"; }
  void validate() const override;
  OptionValues values() const override;
  void set_values(const std::map<std::string, double>& values) override;
};

class EMBER_API ASGDParamState : public OptimizerParamState {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(double, eta) = 0;
  EMBER_ARG(double, mu) = 1;
  EMBER_ARG(Tensor, ax);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  void load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
            const std::string& prefix) override;
};

class EMBER_API ASGD : public Optimizer {
 public:
  explicit ASGD(std::vector<Tensor> params, ASGDOptions defaults = {});
  explicit ASGD(std::vector<OptimizerParamGroup> param_groups, ASGDOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
