// Front ends of the gradient-scaling ops: checks (PyTorch's messages), grouping by dtype, and the
// backend's fused kernels.
#include "ember/amp/scaling_ops.h"

#include <climits>
#include <map>
#include <vector>

#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/autograd.h"

namespace ember::amp {
namespace {

void check_one_float(const Tensor& t, const char* name, const char* op) {
  EMBER_CHECK(t.defined() && t.numel() == 1, ValueError, op, ": ", name,
              " must be a 1-element tensor.");
  EMBER_CHECK(t.dtype() == kFloat, TypeError, op, ": ", name, " must be a float tensor, got ",
              python_name(t.dtype()));
}

}  // namespace

void non_finite_check_and_unscale_(TensorList grads, const Tensor& found_inf,
                                   const Tensor& inv_scale) {
  const char* op = "_amp_foreach_non_finite_check_and_unscale_";
  check_one_float(found_inf, "found_inf", op);
  check_one_float(inv_scale, "inv_scale", op);
  check_same_device(found_inf, inv_scale, op);
  // Dense gradients are unscaled where they are; others through a contiguous copy.
  std::map<ScalarType, std::vector<Tensor>> by_dtype;
  std::vector<std::pair<Tensor, Tensor>> copied_back;  // (gradient, its contiguous copy)
  for (size_t i = 0; i < grads.size(); ++i) {
    const Tensor& g = grads[i];
    EMBER_CHECK(g.defined(), ValueError, op, ": gradient ", i, " is undefined");
    check_same_device(g, found_inf, op);
    EMBER_CHECK(is_floating_point(g.dtype()), TypeError, op, ": gradient ", i,
                " must be a floating point tensor, got ", python_name(g.dtype()));
    if (g.numel() == 0) continue;
    if (g.is_contiguous()) {
      by_dtype[g.dtype()].push_back(g);
    } else {
      Tensor c = g.contiguous();
      copied_back.emplace_back(g, c);
      by_dtype[g.dtype()].push_back(c);
    }
  }
  Backend& backend = backend_for(found_inf);
  for (auto& [dtype, list] : by_dtype) {
    backend.non_finite_check_and_unscale(list, found_inf, inv_scale);
  }
  NoGradGuard no_grad;
  for (auto& [g, c] : copied_back) Tensor(g).copy_(c);
}

Tensor& update_scale_(Tensor& scale, Tensor& growth_tracker, const Tensor& found_inf,
                      double growth_factor, double backoff_factor, int64_t growth_interval) {
  const char* op = "_amp_update_scale_";
  check_one_float(scale, "current_scale", op);
  check_one_float(found_inf, "found_inf", op);
  EMBER_CHECK(growth_tracker.defined() && growth_tracker.numel() == 1, ValueError, op,
              ": growth_tracker must be a 1-element tensor.");
  EMBER_CHECK(growth_tracker.dtype() == kInt, TypeError, op,
              ": growth_tracker must be an int tensor, got ", python_name(growth_tracker.dtype()));
  check_same_device(scale, growth_tracker, op);
  check_same_device(scale, found_inf, op);
  EMBER_CHECK(growth_interval > 0 && growth_interval <= INT32_MAX, ValueError, op,
              ": growth_interval must be a positive int32, got ", growth_interval);
  backend_for(scale).update_scale(scale, growth_tracker, found_inf, growth_factor, backoff_factor,
                                  growth_interval);
  scale.bump_version();
  growth_tracker.bump_version();
  return scale;
}

}  // namespace ember::amp
