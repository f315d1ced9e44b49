// Gradient clipping as torch.nn.utils.clip_grad_norm_ / clip_grad_value_ compute it.
#include "ember/optim/clip_grad.h"

#include <cmath>
#include <limits>

#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::nn::utils {

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const auto& p : parameters) {
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return 0.0;
  const Device device = grads[0].device();
  // The norm of the per-gradient norms, each gathered on the first gradient's device.
  std::vector<Tensor> norms;
  norms.reserve(grads.size());
  for (const auto& g : grads) norms.push_back(g.norm(norm_type).to(device));
  Tensor total = norms.size() == 1 ? norms[0] : stack(norms).norm(norm_type);
  const double total_norm = total.item<double>();
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total_norm), ValueError,
              "The total norm of order ", norm_type,
              " for gradients from `parameters` is non-finite (", total_norm,
              "), so it cannot be clipped. To disable this error and scale the gradients by the "
              "non-finite norm anyway, set error_if_nonfinite=false");
  // Scaled by min(1, max_norm / (norm + 1e-6)) computed on the device, as PyTorch does.
  Tensor coef = clamp(max_norm / (total + 1e-6), std::nullopt, 1.0);
  for (auto& g : grads) {
    Tensor grad = g;  // the handle shares the parameter's gradient storage
    grad.mul_(coef.device() == grad.device() ? coef : coef.to(grad.device()));
  }
  return total_norm;
}

double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>(parameters), max_norm, norm_type, error_if_nonfinite);
}

double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const auto& p : parameters) {
    if (!p.defined() || !p.grad().defined()) continue;
    Tensor grad = p.grad();
    grad.clamp_(-clip_value, clip_value);
  }
}

void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<Tensor>(parameters), clip_value);
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

}  // namespace ember::nn::utils
