// instance_norm and InstanceNorm1d/2d/3d: the row_norm kernels (ops/row_norm.h) with one row per
// (sample, channel); running statistics, when kept, are each sample's averaged over the samples
// (PyTorch's formulation), and with use_input_stats=false they normalise, as batch_norm's eval.
#include "ember/autograd.h"
#include "ember/nn/init.h"
#include "ember/nn/modules/instancenorm.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "nn/describe.h"
#include "ops/row_norm.h"

namespace ember {

Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const Tensor& running_mean, const Tensor& running_var, bool use_input_stats,
                     double momentum, double eps) {
  EMBER_CHECK(input.dim() >= 2, ValueError,
              "instance_norm(): expected an input of at least 2 dims [N, C, ...], got shape ",
              input.sizes());
  const int64_t N = input.size(0), C = input.size(1);
  for (const Tensor* t : {&weight, &bias, &running_mean, &running_var}) {
    EMBER_CHECK(!t->defined() || t->numel() == C, ValueError,
                "instance_norm(): expected a tensor of ", C, " elements (one per channel of input ",
                input.sizes(), "), got shape ", t->sizes());
  }
  EMBER_CHECK(running_mean.defined() == running_var.defined(), ValueError,
              "instance_norm(): running_mean and running_var must be given together");
  EMBER_CHECK(use_input_stats || running_mean.defined(), ValueError,
              "Expected running_mean and running_var to be defined when use_input_stats is false");
  const int64_t positions = N * C == 0 ? 0 : input.numel() / (N * C);
  EMBER_CHECK(!use_input_stats || positions > 1, ValueError,
              "Expected more than 1 spatial element when training, got input size ", input.sizes());
  if (!use_input_stats) {  // the running statistics of each channel, for every sample
    auto repeated = [N](const Tensor& t) { return t.defined() ? t.repeat({N}) : Tensor(); };
    Tensor mean = repeated(running_mean), var = repeated(running_var);
    return batch_norm(input.reshape({1, N * C, positions}), repeated(weight), repeated(bias), mean,
                      var, false, momentum, eps)
        .view(input.sizes());
  }
  RowNormGeometry g;
  g.rows = N * C;
  g.row_size = positions;
  g.groups = C;
  g.weights_per_group = 1;
  g.eps = eps;
  detail::RowNormResult r =
      detail::normalize_rows("instance_norm", "NativeBatchNormBackward0", input, g, weight, bias);
  if (running_mean.defined()) {  // each sample's statistics, averaged over the samples
    NoGradGuard no_grad;
    const double n = static_cast<double>(positions);
    const Tensor var = (r.rstd.pow(-2) - eps).view({N, C}).mean(0);
    running_mean.mul_(1 - momentum)
        .add_(r.mean.view({N, C}).mean(0).to(running_mean.dtype()), momentum);
    running_var.mul_(1 - momentum).add_(var.to(running_var.dtype()), momentum * n / (n - 1));
  }
  return r.out;
}

namespace nn::detail {

template <size_t D, typename Derived>
void InstanceNormImpl<D, Derived>::reset() {
  const int64_t C = options.num_features();
  EMBER_CHECK(C > 0, ValueError, "InstanceNorm", D, "d: num_features must be positive, got ", C);
  if (options.affine()) {
    weight = this->register_parameter("weight", ember::empty({C}));
    bias = this->register_parameter("bias", ember::empty({C}));
  }
  if (options.track_running_stats()) {
    running_mean = this->register_buffer("running_mean", zeros({C}));
    running_var = this->register_buffer("running_var", ones({C}));
    num_batches_tracked = this->register_buffer("num_batches_tracked", zeros({}, kLong));
  }
  reset_parameters();
}

template <size_t D, typename Derived>
void InstanceNormImpl<D, Derived>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  init::zeros_(running_mean);
  init::ones_(running_var);
  init::zeros_(num_batches_tracked);
}

template <size_t D, typename Derived>
void InstanceNormImpl<D, Derived>::reset_parameters() {
  reset_running_stats();
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

template <size_t D, typename Derived>
Tensor InstanceNormImpl<D, Derived>::forward(const Tensor& input) {
  const int64_t batched = static_cast<int64_t>(D) + 2;
  EMBER_CHECK(input.dim() == batched || input.dim() == batched - 1, ValueError, describe(*this),
              ": expected ", batched - 1, "D or ", batched, "D input (got ", input.dim(),
              "D input of shape ", input.sizes(), ")");
  if (input.dim() == batched - 1) return forward(input.unsqueeze(0)).squeeze(0);
  // As PyTorch: without parameters or statistics, num_features is not used and not checked.
  EMBER_CHECK(input.size(1) == options.num_features() ||
                  !(options.affine() || options.track_running_stats()),
              ValueError, describe(*this), ": expected input with ", options.num_features(),
              " channels (dim 1), got shape ", input.sizes());
  // num_batches_tracked is kept for state dicts but, as in PyTorch, never counted.
  const bool use_input_stats = this->is_training() || !options.track_running_stats();
  return ember::instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                              options.momentum(), options.eps());
}

template <size_t D, typename Derived>
void InstanceNormImpl<D, Derived>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::InstanceNorm" << D << "d(" << options.num_features()
         << ", eps=" << options.eps() << ", momentum=" << options.momentum()
         << ", affine=" << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << ")";
}

template class InstanceNormImpl<1, InstanceNorm1dImpl>;
template class InstanceNormImpl<2, InstanceNorm2dImpl>;
template class InstanceNormImpl<3, InstanceNorm3dImpl>;

}  // namespace nn::detail
}  // namespace ember
