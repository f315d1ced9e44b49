#pragma once
// The two device ops GradScaler is built from (PyTorch's torch._amp_foreach_non_finite_check_
// and_unscale_ and torch._amp_update_scale_), for code that scales gradients its own way.
#include "ember/tensor.h"

namespace ember::amp {

// Multiplies every gradient in place by inv_scale and sets found_inf to 1 if any element of any
// of them is inf or NaN (found_inf is left as it was otherwise). found_inf and inv_scale are
// 1-element float32 tensors on the gradients' device. One fused pass per dtype (a kernel launch
// per dtype on CUDA, no host synchronisation).
EMBER_API void non_finite_check_and_unscale_(TensorList grads, const Tensor& found_inf,
                                             const Tensor& inv_scale);

// Updates scale (1-element float32) and growth_tracker (1-element int32) in place on their
// device: if found_inf: scale *= backoff_factor and the tracker restarts; otherwise the tracker
// counts one more clean step, and after growth_interval of them scale *= growth_factor (unless
// that overflows float32) and the tracker restarts. Returns scale.
EMBER_API Tensor& update_scale_(Tensor& scale, Tensor& growth_tracker, const Tensor& found_inf,
                                double growth_factor, double backoff_factor,
                                int64_t growth_interval);

}  // namespace ember::amp
