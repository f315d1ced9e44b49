// amp::GradScaler: PyTorch 1.13's torch/cuda/amp/grad_scaler.py, step for step.
#include "ember/amp/grad_scaler.h"

#include "ember/amp/scaling_ops.h"
#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::amp {

GradScaler::GradScaler(const GradScalerOptions& options) : options_(options) {
  if (!options_.enabled()) return;
  EMBER_CHECK(options_.growth_factor() > 1.0, ValueError,
              "GradScaler: the growth factor must be > 1.0, got ", options_.growth_factor());
  EMBER_CHECK(options_.backoff_factor() < 1.0, ValueError,
              "GradScaler: the backoff factor must be < 1.0, got ", options_.backoff_factor());
  EMBER_CHECK(options_.growth_interval() > 0, ValueError,
              "GradScaler: the growth interval must be positive, got ", options_.growth_interval());
}

void GradScaler::lazy_init(Device device) {
  scale_ = full({1}, options_.init_scale(), TensorOptions(kFloat).device(device));
  growth_tracker_ = full({1}, init_growth_tracker_, TensorOptions(kInt).device(device));
}

void GradScaler::check_initialized(const char* method) const {
  EMBER_CHECK(scale_.defined(), Error, "Attempted ", method,
              " but _scale is None.  This may indicate your script did not use "
              "scaler.scale(loss or outputs) earlier in the iteration.");
}

Tensor GradScaler::scale(const Tensor& outputs) {
  if (!options_.enabled()) return outputs;
  if (!scale_.defined()) lazy_init(outputs.device());
  return outputs * scale_.to(outputs.device(), /*non_blocking=*/true);
}

std::vector<Tensor> GradScaler::scale(const std::vector<Tensor>& outputs) {
  if (!options_.enabled()) return outputs;
  std::unordered_map<Device, Tensor> per_device;  // one copy of the scale per device
  std::vector<Tensor> scaled;
  scaled.reserve(outputs.size());
  for (const Tensor& t : outputs) {
    if (!scale_.defined()) lazy_init(t.device());
    auto it = per_device.find(t.device());
    if (it == per_device.end()) {
      it = per_device.emplace(t.device(), scale_.to(t.device(), true, /*copy=*/true)).first;
    }
    scaled.push_back(t * it->second);
  }
  return scaled;
}

void GradScaler::unscale_(optim::Optimizer& optimizer) {
  if (!options_.enabled()) return;
  check_initialized("unscale_");
  OptimizerState& state = per_optimizer_[&optimizer];
  EMBER_CHECK(state.stage != Stage::Unscaled, Error,
              "unscale_() has already been called on this optimizer since the last update().");
  EMBER_CHECK(state.stage != Stage::Stepped, Error, "unscale_() is being called after step().");
  NoGradGuard no_grad;
  // 1 / scale in float64, rounded to float32 once, as PyTorch computes it.
  const Tensor inv_scale = (1.0 / scale_.to(kDouble)).to(kFloat);
  const Tensor found_inf = zeros({1}, TensorOptions(kFloat).device(scale_.device()));
  std::unordered_map<Device, std::vector<Tensor>> grads_per_device;
  for (const auto& group : optimizer.param_groups()) {
    for (const Tensor& p : group.params()) {
      const Tensor& g = p.grad();
      if (!g.defined()) continue;
      EMBER_CHECK(g.dtype() != kHalf, ValueError,
                  "Attempting to unscale FP16 gradients. (GradScaler keeps parameters in float32 "
                  "and lets autocast run the ops in float16; a parameter of shape ",
                  p.sizes(), " is float16)");
      grads_per_device[g.device()].push_back(g);
    }
  }
  state.found_inf_per_device.clear();
  for (auto& [device, grads] : grads_per_device) {
    Tensor device_found_inf = found_inf.to(device, true, /*copy=*/true);
    non_finite_check_and_unscale_(grads, device_found_inf, inv_scale.to(device, true, true));
    state.found_inf_per_device[device] = device_found_inf;
  }
  state.stage = Stage::Unscaled;
}

Tensor GradScaler::step(optim::Optimizer& optimizer) {
  if (!options_.enabled()) return optimizer.step();
  check_initialized("step");
  OptimizerState& state = per_optimizer_[&optimizer];
  EMBER_CHECK(state.stage != Stage::Stepped, Error,
              "step() has already been called since the last update().");
  if (state.stage == Stage::Ready) unscale_(optimizer);
  EMBER_CHECK(!state.found_inf_per_device.empty(), Error,
              "No inf checks were recorded for this optimizer. (None of its parameters has a "
              "gradient: did backward run on the scaled loss?)");
  // The one wait for the device: whether any gradient overflowed.
  double found = 0;
  for (const auto& [device, found_inf] : state.found_inf_per_device) {
    found += found_inf.item<double>();
  }
  Tensor result;
  if (found == 0) result = optimizer.step();
  state.stage = Stage::Stepped;
  return result;
}

void GradScaler::update() {
  if (!options_.enabled()) return;
  check_initialized("update");
  Tensor combined;
  for (const auto& [optimizer, state] : per_optimizer_) {
    for (const auto& [device, found_inf] : state.found_inf_per_device) {
      Tensor here = found_inf.to(scale_.device(), /*non_blocking=*/true);
      combined = combined.defined() ? combined + here : here;
    }
  }
  EMBER_CHECK(combined.defined(), Error,
              "No inf checks were recorded prior to update(). (Call step(optimizer) or "
              "unscale_(optimizer) first.)");
  update_scale_(scale_, growth_tracker_, combined, options_.growth_factor(),
                options_.backoff_factor(), options_.growth_interval());
  per_optimizer_.clear();
}

void GradScaler::update(double new_scale) {
  if (!options_.enabled()) return;
  check_initialized("update");
  scale_.fill_(new_scale);
  per_optimizer_.clear();
}

void GradScaler::update(const Tensor& new_scale) {
  if (!options_.enabled()) return;
  check_initialized("update");
  EMBER_CHECK(new_scale.defined() && new_scale.numel() == 1 && new_scale.dtype() == kFloat &&
                  !new_scale.requires_grad(),
              ValueError,
              "new_scale should be a float or a 1-element float32 tensor with "
              "requires_grad=false.");
  NoGradGuard no_grad;
  scale_.copy_(new_scale.reshape({1}), /*non_blocking=*/true);
  per_optimizer_.clear();
}

double GradScaler::get_scale() const {
  if (!options_.enabled()) return 1.0;
  return scale_.defined() ? scale_.item<double>() : options_.init_scale();
}

int64_t GradScaler::get_growth_tracker() const {
  if (!options_.enabled()) return 0;
  return growth_tracker_.defined() ? growth_tracker_.item<int64_t>() : init_growth_tracker_;
}

std::map<std::string, Tensor> GradScaler::state_dict() const {
  if (!options_.enabled()) return {};
  return {{"scale", scalar_tensor(get_scale(), kDouble)},
          {"growth_factor", scalar_tensor(options_.growth_factor(), kDouble)},
          {"backoff_factor", scalar_tensor(options_.backoff_factor(), kDouble)},
          {"growth_interval", scalar_tensor(options_.growth_interval(), kLong)},
          {"_growth_tracker", scalar_tensor(get_growth_tracker(), kLong)}};
}

void GradScaler::load_state_dict(const std::map<std::string, Tensor>& state_dict) {
  if (!options_.enabled()) return;
  EMBER_CHECK(!state_dict.empty(), ValueError,
              "The source state dict is empty, possibly because it was saved from a disabled "
              "instance of GradScaler.");
  auto value = [&](const char* key) {
    auto it = state_dict.find(key);
    EMBER_CHECK(it != state_dict.end(), ValueError, "GradScaler::load_state_dict: missing key \"",
                key, "\"");
    EMBER_CHECK(it->second.numel() == 1, ValueError, "GradScaler::load_state_dict: \"", key,
                "\" must hold one value, got shape ", it->second.sizes());
    return it->second.item<double>();
  };
  const double scale = value("scale"), growth = value("growth_factor");
  const double backoff = value("backoff_factor"), interval = value("growth_interval");
  const double tracker = value("_growth_tracker");
  options_.init_scale(scale).growth_factor(growth).backoff_factor(backoff);
  options_.growth_interval(static_cast<int64_t>(interval));
  init_growth_tracker_ = static_cast<int64_t>(tracker);
  if (scale_.defined()) scale_.fill_(scale);
  if (growth_tracker_.defined()) growth_tracker_.fill_(init_growth_tracker_);
}

}  // namespace ember::amp
