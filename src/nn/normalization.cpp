// batch_norm, composed from reductions and elementwise ops (autograd follows); layer_norm, the
// row_norm kernels (ops/row_norm.h); and the BatchNorm1d/2d and LayerNorm modules.
#include <cmath>

#include "core/autocast_hook.h"
#include "ember/nn/init.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/normalization.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "nn/describe.h"
#include "ops/row_norm.h"

namespace ember {
namespace {

// [1, C, 1, ...]: a per-channel vector broadcast against an input of `dim` dims.
Tensor per_channel(const Tensor& v, int64_t dim) {
  DimVector shape(dim, 1);
  shape[1] = v.numel();
  return v.reshape(shape);
}

// "10, 5" for [10, 5], as PyTorch writes the expected shape [*, 10, 5].
std::string tail_str(const std::vector<int64_t>& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s;
}

bool is_16_bit(const Tensor& t) {
  return t.dtype() == kHalf || t.dtype() == kBFloat16;
}
Tensor as_float(const Tensor& t) {
  return t.defined() && is_16_bit(t) ? t.to(kFloat) : t;
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, bool training,
                  double momentum, double eps) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::batch_norm, input);
    return batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
  }
  EMBER_CHECK(input.dim() >= 2, ValueError,
              "batch_norm(): expected an input of at least 2 dims [N, C, ...], got shape ",
              input.sizes());
  const int64_t C = input.size(1);
  for (const Tensor* t : {&weight, &bias, &running_mean, &running_var}) {
    EMBER_CHECK(!t->defined() || t->numel() == C, ValueError, "batch_norm(): expected a tensor of ",
                C, " elements (one per channel of input ", input.sizes(), "), got shape ",
                t->sizes());
  }
  // 16-bit inputs are normalised in float32 and rounded once, as PyTorch's kernels do; float32
  // weight and bias (a model under autocast) then give a result in the input's dtype.
  if (is_16_bit(input)) {
    return batch_norm(input.to(kFloat), as_float(weight), as_float(bias), running_mean, running_var,
                      training, momentum, eps)
        .to(input.dtype());
  }
  DimVector dims;
  for (int64_t d = 0; d < input.dim(); ++d) {
    if (d != 1) dims.push_back(d);
  }
  Tensor mean, var;
  if (training || !running_mean.defined()) {
    const int64_t per_channel_count = input.numel() / std::max<int64_t>(C, 1);
    EMBER_CHECK(!training || per_channel_count > 1, ValueError,
                "Expected more than 1 value per channel when training, got input size ",
                input.sizes());
    mean = input.mean(dims, /*keepdim=*/true);
    var = input.var(dims, /*unbiased=*/false, /*keepdim=*/true);
    if (training && running_mean.defined()) {
      NoGradGuard no_grad;
      const double n = static_cast<double>(per_channel_count);
      Tensor rm = running_mean, rv = running_var;
      rm.mul_(1 - momentum).add_(mean.reshape({C}).to(rm.dtype()), momentum);
      rv.mul_(1 - momentum).add_(var.reshape({C}).to(rv.dtype()), momentum * n / (n - 1));
    }
  } else {
    mean = per_channel(running_mean, input.dim());
    var = per_channel(running_var, input.dim());
  }
  Tensor out = (input - mean) * rsqrt(var + eps);
  if (weight.defined()) out = out * per_channel(weight, input.dim());
  if (bias.defined()) out = out + per_channel(bias, input.dim());
  return out;
}

Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                  const Tensor& weight, const Tensor& bias, double eps) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::layer_norm, input);
    return layer_norm(ac.cast(input), normalized_shape, ac.cast(weight), ac.cast(bias), eps);
  }
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  bool ok = k >= 1 && input.dim() >= k;
  for (int64_t i = 0; ok && i < k; ++i) {
    ok = input.size(input.dim() - k + i) == normalized_shape[i];
  }
  EMBER_CHECK(ok, ValueError, "Given normalized_shape=", IntArrayRef(normalized_shape),
              ", expected input with shape [*, ", tail_str(normalized_shape),
              "], but got input of size", input.sizes());
  for (const Tensor* t : {&weight, &bias}) {
    EMBER_CHECK(!t->defined() || t->sizes() == IntArrayRef(normalized_shape), ValueError,
                "layer_norm(): weight and bias must have shape ", IntArrayRef(normalized_shape),
                ", got ", t->sizes());
  }
  RowNormGeometry g;
  g.row_size = 1;
  for (int64_t n : normalized_shape) g.row_size *= n;
  g.rows = 1;
  for (int64_t d = 0; d < input.dim() - k; ++d) g.rows *= input.size(d);
  g.weights_per_group = g.row_size;
  g.eps = eps;
  return detail::normalize_rows("layer_norm", "NativeLayerNormBackward0", input, g, weight, bias)
      .out;
}

namespace nn {

BatchNormImplBase::BatchNormImplBase(const BatchNormOptions& options_, int64_t dims)
    : options(options_), dims_(dims) {
  reset();
}

void BatchNormImplBase::reset() {
  const int64_t C = options.num_features();
  EMBER_CHECK(C > 0, ValueError, "BatchNorm: num_features must be positive, got ", C);
  if (options.affine()) {
    weight = register_parameter("weight", empty({C}));
    bias = register_parameter("bias", empty({C}));
  }
  if (options.track_running_stats()) {
    running_mean = register_buffer("running_mean", zeros({C}));
    running_var = register_buffer("running_var", ones({C}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, kLong));
  }
  reset_parameters();
}

void BatchNormImplBase::reset_running_stats() {
  if (!options.track_running_stats()) return;
  init::zeros_(running_mean);
  init::ones_(running_var);
  init::zeros_(num_batches_tracked);
}

void BatchNormImplBase::reset_parameters() {
  reset_running_stats();
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

Tensor BatchNormImplBase::forward(const Tensor& input) {
  check_input_dim(input);
  EMBER_CHECK(input.size(1) == options.num_features(), ValueError, detail::describe(*this),
              ": expected input with ", options.num_features(), " channels (dim 1), got shape ",
              input.sizes());
  double factor = 0.0;
  if (is_training() && options.track_running_stats()) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);
    factor = options.momentum() ? *options.momentum()
                                : 1.0 / static_cast<double>(num_batches_tracked.item<int64_t>());
  }
  const bool use_batch_stats = is_training() || !running_mean.defined();
  const bool track = !is_training() || options.track_running_stats();
  return ember::batch_norm(input, weight, bias, track ? running_mean : Tensor(),
                           track ? running_var : Tensor(), use_batch_stats, factor, options.eps());
}

void BatchNormImplBase::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::BatchNorm" << dims_ << "d(" << options.num_features()
         << ", eps=" << options.eps() << ", momentum=";
  if (options.momentum()) {
    stream << *options.momentum();
  } else {
    stream << "None";
  }
  stream << ", affine=" << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << ")";
}

void BatchNorm1dImpl::check_input_dim(const Tensor& input) const {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, ValueError, detail::describe(*this),
              ": expected 2D or 3D input (got ", input.dim(), "D input of shape ", input.sizes(),
              ")");
}

void BatchNorm2dImpl::check_input_dim(const Tensor& input) const {
  EMBER_CHECK(input.dim() == 4, ValueError, detail::describe(*this), ": expected 4D input (got ",
              input.dim(), "D input of shape ", input.sizes(), ")");
}

void BatchNorm3dImpl::check_input_dim(const Tensor& input) const {
  EMBER_CHECK(input.dim() == 5, ValueError, detail::describe(*this), ": expected 5D input (got ",
              input.dim(), "D input of shape ", input.sizes(), ")");
}

LayerNormImpl::LayerNormImpl(const LayerNormOptions& options_) : options(options_) {
  reset();
}

void LayerNormImpl::reset() {
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", ember::empty(options.normalized_shape()));
    bias = register_parameter("bias", ember::empty(options.normalized_shape()));
    reset_parameters();
  }
}

void LayerNormImpl::reset_parameters() {
  if (!options.elementwise_affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return ember::layer_norm(input, options.normalized_shape(), weight, bias, options.eps());
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::LayerNorm(" << IntArrayRef(options.normalized_shape())
         << ", eps=" << options.eps() << ", elementwise_affine=" << options.elementwise_affine()
         << ")";
}

}  // namespace nn
}  // namespace ember
