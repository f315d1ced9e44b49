#pragma once
// L-BFGS, torch.optim.LBFGS (1.13): every step() runs up to max_iter quasi-Newton iterations,
// calling the closure to re-evaluate the loss and gradients, with a fixed step (lr) or the strong
// Wolfe line search (line_search_fn("strong_wolfe")). One parameter group only; the state
// (directions, history) lives with the first parameter, as in PyTorch.
//
//   ember::optim::LBFGS opt(model->parameters(), ember::optim::LBFGSOptions(1).max_iter(20));
//   opt.step([&] { opt.zero_grad(); auto loss = criterion(model(x), y); loss.backward();
//                  return loss; });
#include <deque>
#include <optional>
#include <string>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API LBFGSOptions : public OptimizerOptions {
 public:
  LBFGSOptions(double lr = 1);  // NOLINT: implicit as in libtorch
  EMBER_ARG(double, lr);
  EMBER_ARG(int64_t, max_iter) = 20;
  // Function evaluations per step(); max_iter * 5 / 4 when not set.
  EMBER_ARG(std::optional<int64_t>, max_eval) = std::nullopt;
  EMBER_ARG(double, tolerance_grad) = 1e-7;
  EMBER_ARG(double, tolerance_change) = 1e-9;
  EMBER_ARG(int64_t, history_size) = 100;
  // std::nullopt (a fixed step of lr) or "strong_wolfe".
  EMBER_ARG(std::optional<std::string>, line_search_fn) = std::nullopt;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override;
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { lr_ = lr; }
  const char* type_name() const override { return "LBFGSOptions"; }
  void validate() const override;
  OptionValues values() const override;
  void set_values(const std::map<std::string, double>& values) override;
};

// The optimizer's state, kept with the first parameter. Vectors are over all parameters
// flattened and concatenated.
class EMBER_API LBFGSParamState : public OptimizerParamState {
  EMBER_ARG(int64_t, func_evals) = 0;
  EMBER_ARG(int64_t, n_iter) = 0;
  EMBER_ARG(double, t) = 0;
  EMBER_ARG(double, prev_loss) = 0;
  EMBER_ARG(Tensor, d);
  EMBER_ARG(double, H_diag) = 1;
  EMBER_ARG(Tensor, prev_flat_grad);
  EMBER_ARG(std::deque<Tensor>, old_dirs);
  EMBER_ARG(std::deque<Tensor>, old_stps);
  EMBER_ARG(std::deque<double>, ro);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  // func_evals, n_iter (int64 scalars); t, prev_loss, H_diag (float64 scalars); d,
  // prev_flat_grad [N]; old_dirs, old_stps [k, N]; ro (float64 [k]), when set.
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  void load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
            const std::string& prefix) override;
};

class EMBER_API LBFGS : public Optimizer {
 public:
  LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {});
  LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults = {});
  // The closure is required: it zeroes the gradients, computes the loss, calls backward and
  // returns the loss. Returns the loss of the first evaluation.
  Tensor step(LossClosure closure) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;

 private:
  // Every parameter's gradient flattened into one vector (zeros for a missing gradient).
  Tensor gather_flat_grad() const;
  // p += step * update (the slice of the flat update that belongs to p), for every parameter.
  void add_grad(double step, const Tensor& update);
  // Loss and flat gradient at x + t * d, then the parameters are put back to x.
  std::pair<double, Tensor> directional_evaluate(const LossClosure& closure,
                                                 const std::vector<Tensor>& x, double t,
                                                 const Tensor& d);
  // The total number of elements of the parameters (set once, for the state's shapes).
  int64_t numel() const;
};

}  // namespace ember::optim
