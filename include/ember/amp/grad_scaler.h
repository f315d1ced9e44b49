#pragma once
// Gradient scaling for float16 training: torch.cuda.amp.GradScaler in C++ spelling, on any
// device (the scale lives on the device of the first output it scales).
//
//   ember::amp::GradScaler scaler;                       // init_scale 65536, growth every 2000
//   for (auto& batch : loader) {
//     optimizer.zero_grad();
//     ember::Tensor loss;
//     {
//       ember::amp::autocast region(ember::kCUDA);
//       loss = loss_fn(model->forward(batch.data), batch.target);
//     }
//     scaler.scale(loss).backward();                     // gradients of loss * scale
//     scaler.unscale_(optimizer);                        // optional: e.g. to clip gradients
//     ember::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
//     scaler.step(optimizer);                            // skipped if any gradient is inf/NaN
//     scaler.update();                                   // backoff after an overflow, else grow
//   }
//
// The unscale and the inf/NaN check are one fused pass per device and dtype, the scale update
// runs on the device; the only wait for the device is step() reading whether an overflow was
// found, as in PyTorch.
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/nn/arg.h"
#include "ember/optim/optimizer.h"
#include "ember/tensor.h"

namespace ember::amp {

struct EMBER_API GradScalerOptions {
  EMBER_ARG(double, init_scale) = 65536.0;
  // Must be > 1: the scale is multiplied by it after growth_interval steps without inf/NaN.
  EMBER_ARG(double, growth_factor) = 2.0;
  // Must be < 1: the scale is multiplied by it after a step with inf/NaN gradients.
  EMBER_ARG(double, backoff_factor) = 0.5;
  EMBER_ARG(int64_t, growth_interval) = 2000;
  // false: scale() returns its input, step() just steps, the rest does nothing.
  EMBER_ARG(bool, enabled) = true;
};

class EMBER_API GradScaler {
 public:
  explicit GradScaler(const GradScalerOptions& options = {});

  // outputs * scale (the scale copied to each output's device once per call).
  Tensor scale(const Tensor& outputs);
  std::vector<Tensor> scale(const std::vector<Tensor>& outputs);
  // Divides the gradients of the optimizer's parameters by the scale in place and records, per
  // device, whether any was inf or NaN. At most once per optimizer between update()s, before
  // step(). Float16 gradients (of float16 parameters) are rejected, as in PyTorch: keep
  // parameters in float32 and let autocast lower the ops.
  void unscale_(optim::Optimizer& optimizer);
  // Unscales (unless unscale_ did), then runs optimizer.step() unless a gradient was inf or NaN.
  // Returns step()'s loss, or an undefined tensor when the step was skipped.
  Tensor step(optim::Optimizer& optimizer);
  // After every optimizer of the iteration stepped: backoff or growth of the scale (on the
  // device), and a fresh iteration for every optimizer.
  void update();
  // Sets the scale (the tracker of clean steps is kept).
  void update(double new_scale);
  // From a 1-element float32 tensor that does not require grad (copied, on the device).
  void update(const Tensor& new_scale);

  // The current scale (waits for the device), or 1.0 when disabled.
  double get_scale() const;
  double get_growth_factor() const { return options_.growth_factor(); }
  void set_growth_factor(double factor) { options_.growth_factor(factor); }
  double get_backoff_factor() const { return options_.backoff_factor(); }
  void set_backoff_factor(double factor) { options_.backoff_factor(factor); }
  int64_t get_growth_interval() const { return options_.growth_interval(); }
  void set_growth_interval(int64_t interval) { options_.growth_interval(interval); }
  // Clean steps since the last growth or backoff.
  int64_t get_growth_tracker() const;
  bool is_enabled() const { return options_.enabled(); }

  // PyTorch's five entries as 0-dim CPU tensors (ember::save can write them): "scale",
  // "growth_factor", "backoff_factor" (float64), "growth_interval", "_growth_tracker" (int64).
  // Empty when disabled.
  std::map<std::string, Tensor> state_dict() const;
  // Restores them (a no-op when disabled); ValueError for an empty or incomplete dict.
  void load_state_dict(const std::map<std::string, Tensor>& state_dict);

 private:
  enum class Stage { Ready, Unscaled, Stepped };
  struct OptimizerState {
    Stage stage = Stage::Ready;
    std::unordered_map<Device, Tensor> found_inf_per_device;
  };

  void lazy_init(Device device);
  void check_initialized(const char* method) const;

  GradScalerOptions options_;
  int64_t init_growth_tracker_ = 0;
  Tensor scale_;           // [1] float32 on the device of the first scaled output
  Tensor growth_tracker_;  // [1] int32, same device
  std::unordered_map<const optim::Optimizer*, OptimizerState> per_optimizer_;
};

}  // namespace ember::amp
