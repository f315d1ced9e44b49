#pragma once
// Rprop (Riedmiller & Braun), torch.optim.Rprop (1.13): per-element step sizes that grow by
// etaplus while the gradient keeps its sign and shrink by etaminus when it flips:
//   g = maximize ? -grad : grad;   s = sign(g * prev)
//   step_size *= (s > 0 ? etaplus : s < 0 ? etaminus : 1), clamped to [step_size_min, max]
//   g = 0 where s < 0 (no move after a sign flip);   p -= sign(g) * step_size;   prev = g
// step_size starts at lr.
#include <tuple>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API RpropOptions : public OptimizerOptions {
 public:
  RpropOptions(double lr = 1e-2);  // NOLINT: implicit as in libtorch
  EMBER_ARG(double, lr);
  using Etas = std::tuple<double, double>;  // (etaminus, etaplus)
  EMBER_ARG(Etas, etas) = std::make_tuple(0.5, 1.2);
  using StepSizes = std::tuple<double, double>;  // (min, max)
  EMBER_ARG(StepSizes, step_sizes) = std::make_tuple(1e-6, 50.0);
  EMBER_ARG(bool, maximize) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override;
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  const char* type_name() const override { return "RpropOptions"; }
  void validate() const override;
  OptionValues values() const override;
  void set_values(const std::map<std::string, double>& values) override;
};

class EMBER_API RpropParamState : public OptimizerParamState {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, prev);
  EMBER_ARG(Tensor, step_size);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  void load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
            const std::string& prefix) override;
};

class EMBER_API Rprop : public Optimizer {
 public:
  explicit Rprop(std::vector<Tensor> params, RpropOptions defaults = {});
  explicit Rprop(std::vector<OptimizerParamGroup> param_groups, RpropOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
