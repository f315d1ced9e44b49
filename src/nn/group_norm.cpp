// group_norm and GroupNorm: the row_norm kernels (ops/row_norm.h) with one row per (sample, group)
// and a scale and shift per channel; local_response_norm and
// LocalResponseNorm: the channel-window mean of the squares as an average pool. Autograd and
// every device follow from layer_norm, avg_pool2d and the elementwise ops.
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/modules/normalization.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "nn/describe.h"
#include "ops/row_norm.h"

namespace ember {

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                  double eps) {
  EMBER_CHECK(input.dim() >= 2, ValueError,
              "group_norm(): expected an input of at least 2 dims [N, C, ...], got shape ",
              input.sizes());
  const int64_t N = input.size(0), C = input.size(1);
  EMBER_CHECK(num_groups > 0 && C % num_groups == 0, ValueError,
              "Expected number of channels in input to be divisible by num_groups, but got input "
              "of shape ",
              input.sizes(), " and num_groups=", num_groups);
  for (const Tensor* t : {&weight, &bias}) {
    EMBER_CHECK(!t->defined() || (t->dim() == 1 && t->numel() == C), ValueError,
                "Expected weight to be a vector of size equal to the number of channels in "
                "input, but got weight of shape ",
                t->sizes(), " and input of shape ", input.sizes());
  }
  int64_t positions = 1;  // per channel
  for (int64_t d = 2; d < input.dim(); ++d) positions *= input.size(d);
  RowNormGeometry g;
  g.groups = num_groups;
  g.rows = N * num_groups;
  g.weights_per_group = C / num_groups;
  g.row_size = g.weights_per_group * positions;
  g.eps = eps;
  return detail::normalize_rows("group_norm", "NativeGroupNormBackward0", input, g, weight, bias)
      .out;
}

namespace nn {

namespace functional {

Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options) {
  EMBER_CHECK(input.dim() >= 3, ValueError, "Expected 3D or higher dimensionality input (got ",
              input.dim(), " dimensions)");
  EMBER_CHECK(options.size() > 0, ValueError, "local_response_norm: size must be positive, got ",
              options.size());
  const int64_t size = options.size(), N = input.size(0), C = input.size(1);
  // [N, 1, C, positions]: a (size x 1) average pool slides over the channels, zero-padded by
  // size / 2 before and (size - 1) / 2 after, as PyTorch's.
  Tensor squares = (input * input).reshape({N, 1, C, -1});
  squares = pad(squares, {0, 0, size / 2, (size - 1) / 2});
  Tensor mean = avg_pool2d(squares, {size, 1}, ExpandingArray<2>(1)).reshape(input.sizes());
  return input / pow(mean * options.alpha() + options.k(), options.beta());
}

}  // namespace functional

Tensor LocalResponseNormImpl::forward(const Tensor& input) {
  return functional::local_response_norm(input, options);
}

void LocalResponseNormImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::LocalResponseNorm(" << options.size() << ", alpha=" << options.alpha()
         << ", beta=" << options.beta() << ", k=" << options.k() << ")";
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options_) : options(options_) {
  reset();
}

void GroupNormImpl::reset() {
  EMBER_CHECK(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0,
              ValueError, "GroupNorm: num_channels must be divisible by num_groups, got ",
              options.num_channels(), " channels and ", options.num_groups(), " groups");
  if (options.affine()) {
    weight = register_parameter("weight", ember::empty({options.num_channels()}));
    bias = register_parameter("bias", ember::empty({options.num_channels()}));
    reset_parameters();
  }
}

void GroupNormImpl::reset_parameters() {
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 2 && input.size(1) == options.num_channels(), ValueError,
              detail::describe(*this), ": expected input [N, ", options.num_channels(),
              ", ...], got shape ", input.sizes());
  return ember::group_norm(input, options.num_groups(), weight, bias, options.eps());
}

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::GroupNorm(" << options.num_groups() << ", "
         << options.num_channels() << ", eps=" << options.eps() << ", affine=" << options.affine()
         << ")";
}

}  // namespace nn
}  // namespace ember
