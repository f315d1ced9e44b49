#pragma once
// Gradient clipping, in namespace ember::nn::utils as libtorch has it (torch::nn::utils).
#include <initializer_list>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::utils {

// Scales the gradients of `parameters` in place so that their joint norm_type-norm (the norm of
// the per-gradient norms; norm_type may be infinity) is at most max_norm, and returns the norm
// before clipping. Parameters without a gradient are skipped; with none at all the result is 0.
// error_if_nonfinite throws ValueError when the norm is NaN or infinite.
EMBER_API double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                                 double norm_type = 2.0, bool error_if_nonfinite = false);
EMBER_API double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm,
                                 double norm_type = 2.0, bool error_if_nonfinite = false);
EMBER_API double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                                 bool error_if_nonfinite = false);

// Clamps every gradient element of `parameters` into [-clip_value, clip_value] in place.
EMBER_API void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
EMBER_API void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value);
EMBER_API void clip_grad_value_(const Tensor& parameter, double clip_value);

}  // namespace ember::nn::utils
