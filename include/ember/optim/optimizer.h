#pragma once
// Optimizer base with libtorch's shape: parameter groups that each carry their own options,
// per-parameter state keyed by the parameter's TensorImpl, zero_grad and step.
//
//   ember::optim::SGD opt(model->parameters(), ember::optim::SGDOptions(0.1).momentum(0.9));
//   opt.zero_grad(); loss.backward(); opt.step();
//
// State dicts are flat std::map<std::string, Tensor>s that ember::save writes as safetensors:
//   "param_groups.<g>.params"  int64 [n]  global indices of the group's parameters
//   "param_groups.<g>.<name>"  float64 [] one per option value (bools as 0/1)
//   "state.<i>.<name>"         the state tensors of parameter i (global index, as PyTorch)
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/nn/arg.h"
#include "ember/tensor.h"

namespace ember::optim {

using OptionValues = std::vector<std::pair<std::string, double>>;

// The hyper-parameters of one parameter group.
class EMBER_API OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  // "SGDOptions", "AdamOptions", ... for error messages.
  virtual const char* type_name() const = 0;
  // Throws ValueError naming the offending value (as PyTorch's optimizer constructors do).
  virtual void validate() const = 0;
  // The option values in a fixed order, for state dicts; set_values reads the same names.
  virtual OptionValues values() const = 0;
  virtual void set_values(const std::map<std::string, double>& values) = 0;
};

// What an optimizer keeps per parameter (momentum buffers, moment estimates, step counts).
class EMBER_API OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const = 0;
  // The defined state tensors by name, for state dicts.
  virtual std::vector<std::pair<std::string, Tensor>> tensors() const = 0;
  // Rebuilds the state from `tensors` (as tensors() wrote them) for `param`; checks names and
  // shapes, naming the keys (`prefix` + name) in errors, and moves tensors to the param's device.
  virtual void load(const std::map<std::string, Tensor>& tensors, const Tensor& param,
                    const std::string& prefix) = 0;
};

class EMBER_API OptimizerParamGroup {
 public:
  // Without options the group takes the optimizer's defaults.
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;

  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

using LossClosure = std::function<Tensor()>;
using OptimizerStateDict = std::map<std::string, Tensor>;

class EMBER_API Optimizer {
 public:
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  virtual ~Optimizer();

  // Adds a group; without options it takes a copy of the defaults. Throws ValueError for an
  // undefined or non-leaf tensor, a tensor already in a group, or bad options, and TypeError
  // for options of another optimizer.
  void add_param_group(const OptimizerParamGroup& param_group);
  // Runs `closure` (with grad enabled) when given and returns its loss; then updates the
  // parameters that have a gradient.
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  // set_to_none drops the gradients (the default, as in PyTorch 2); otherwise zeroes them.
  void zero_grad(bool set_to_none = true);

  // Every parameter of every group, in order.
  std::vector<Tensor> parameters() const;
  // The number of parameters over all groups.
  size_t size() const;

  OptimizerOptions& defaults() { return *defaults_; }
  const OptimizerOptions& defaults() const { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const { return param_groups_; }
  // Per-parameter state keyed by param.unsafeGetTensorImpl().
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state() { return state_; }
  const std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state() const {
    return state_;
  }

  // Option values of every group, group membership and per-parameter state (see the top).
  OptimizerStateDict state_dict() const;
  // Restores what state_dict() wrote into an optimizer of the same kind over parameters of the
  // same shapes. Everything is checked before anything changes: group and parameter counts,
  // missing and unexpected keys, state shapes; errors are ValueError naming keys and shapes.
  void load_state_dict(const OptimizerStateDict& state_dict);

 protected:
  Optimizer(std::vector<OptimizerParamGroup> param_groups,
            std::unique_ptr<OptimizerOptions> defaults);
  // An empty state of this optimizer's kind, filled by load_state_dict.
  virtual std::unique_ptr<OptimizerParamState> make_param_state() const = 0;

  std::unique_ptr<OptimizerOptions> defaults_;
  std::vector<OptimizerParamGroup> param_groups_;
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>> state_;
};

namespace detail {
// The state tensor `prefix + name` checked against `param`'s shape and moved to its device and
// dtype; throws ValueError naming the key and both shapes.
EMBER_API Tensor state_like_param(const std::map<std::string, Tensor>& tensors,
                                  const std::string& name, const Tensor& param,
                                  const std::string& prefix, bool required = true);
// A 0-dim integer step count stored as `prefix + name`.
EMBER_API int64_t state_step(const std::map<std::string, Tensor>& tensors, const std::string& name,
                             const std::string& prefix);
// Throws ValueError for a key of `tensors` outside `known` (named as prefix + key).
EMBER_API void check_known_state(const std::map<std::string, Tensor>& tensors,
                                 const std::vector<std::string>& known, const std::string& prefix);
// Reads option `name` from `values`, throwing ValueError naming it when it is missing.
EMBER_API double option_value(const std::map<std::string, double>& values, const std::string& name,
                              const char* type_name);
}  // namespace detail

}  // namespace ember::optim
