#pragma once
// swa_utils::AveragedModel: a deep copy of a model whose parameters (and, with use_buffers, its
// buffers) are running averages of the model's, updated by update_parameters(model)
// (torch.optim.swa_utils.AveragedModel). avg_fn(averaged, current, n_averaged) gives the new
// average; the default weighs every update equally (stochastic weight averaging), and e.g.
//   [](const Tensor& avg, const Tensor& p, const Tensor&) { return avg * 0.999 + p * 0.001; }
// is an exponential moving average (EMA). The first update copies the model's values. It is a
// Module holding the copy as "module" and the count as the buffer "n_averaged", so its
// state_dict has PyTorch's names ("n_averaged", "module.0.weight", ...).
//
//   ember::nn::Sequential model(...);
//   ember::optim::swa_utils::AveragedModel<ember::nn::Sequential> ema(model, ema_fn);
//   ... opt.step(); ema.update_parameters(*model); ...
//   auto y = ema.forward(x);  // the averaged weights
#include <functional>
#include <optional>

#include "ember/autograd.h"
#include "ember/nn/module.h"
#include "ember/ops.h"

namespace ember::optim::swa_utils {

using AvgFn = std::function<Tensor(const Tensor& averaged, const Tensor& current,
                                   const Tensor& num_averaged)>;

namespace detail {
// The update of AveragedModel (not a template, so it lives in the library).
EMBER_API void update_averages(nn::Module& averaged, const nn::Module& model, const AvgFn& avg_fn,
                               bool use_buffers, Tensor& n_averaged);
}  // namespace detail

// ModuleHolder: the model's holder type (nn::Sequential, nn::Linear, or a TORCH_MODULE of
// one's own), whose clone() the average starts from.
template <typename ModuleHolder>
class AveragedModel : public nn::Module {
 public:
  explicit AveragedModel(const ModuleHolder& model, AvgFn avg_fn = nullptr,
                         bool use_buffers = false,
                         const std::optional<Device>& device = std::nullopt)
      : module(
            std::dynamic_pointer_cast<typename ModuleHolder::ContainedType>(model->clone(device))),
        avg_fn_(std::move(avg_fn)),
        use_buffers_(use_buffers) {
    register_module("module", module);
    n_averaged_ = register_buffer(
        "n_averaged",
        ember::zeros({}, TensorOptions().dtype(kLong).device(device.value_or(Device(kCPU)))));
  }

  template <typename... Args>
  auto forward(Args&&... args) {
    return module->forward(std::forward<Args>(args)...);
  }

  // Folds `model`'s current values into the averages (under no_grad) and counts the update.
  void update_parameters(const nn::Module& model) {
    detail::update_averages(*module, model, avg_fn_, use_buffers_, n_averaged_);
  }

  const Tensor& n_averaged() const { return n_averaged_; }

  // The averaged copy.
  ModuleHolder module;

 private:
  AvgFn avg_fn_;
  bool use_buffers_;
  Tensor n_averaged_;
};

}  // namespace ember::optim::swa_utils
