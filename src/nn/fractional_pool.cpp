// Fractional max pooling (FractionalMaxPool2d/3d and their functional forms). Each plane's window
// starts along a dim are PyTorch's pseudo-random sequence, floor((i + u) * alpha) - floor(u *
// alpha) with alpha = (input - kernel) / (output - 1) and the last window flush with the end,
// computed in the input's dtype from the plane's sample u. The windows' elements are gathered from
// the flattened plane and reduced with max, so the gradient is gather's and it runs on every
// device.
#include <sstream>

#include "ember/nn/functional.h"
#include "ember/nn/modules/pooling.h"
#include "ember/ops.h"

namespace ember::nn {
namespace {

// Window starts along one dim for every plane: [N, C, out].
Tensor window_starts(const Tensor& u, int64_t in, int64_t kernel, int64_t out) {
  const TensorOptions o = TensorOptions(kLong).device(u.device());
  Tensor last = full({u.size(0), u.size(1), 1}, in - kernel, o);
  if (out == 1) return last;
  const double alpha = static_cast<double>(in - kernel) / static_cast<double>(out - 1);
  const Tensor i = arange(out - 1, TensorOptions(u.dtype()).device(u.device()));
  const Tensor uu = u.unsqueeze(-1);
  Tensor starts = floor((i + uu) * alpha) - floor(uu * alpha);
  return cat({starts.to(kLong), last}, -1);
}

template <size_t D>
std::tuple<Tensor, Tensor> fractional_max_pool(const Tensor& input,
                                               const FractionalMaxPoolOptions<D>& options,
                                               const char* name) {
  constexpr int64_t dims = static_cast<int64_t>(D);
  EMBER_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2, ValueError, name, "(): Expected ",
              dims + 1, "D or ", dims + 2, "D tensor, but got: ", input.sizes());
  EMBER_CHECK(options.output_size() || options.output_ratio(), ValueError, name,
              " requires specifying either an output_size or an output_ratio");
  const bool batched = input.dim() == dims + 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const int64_t n = x.size(0), c = x.size(1);
  std::vector<int64_t> in(x.sizes().begin() + 2, x.sizes().end()), out(dims), kernel(dims);
  for (int64_t d = 0; d < dims; ++d) {
    kernel[d] = options.kernel_size()[d];
    out[d] = options.output_size()
                 ? (*options.output_size())[d]
                 : static_cast<int64_t>(static_cast<double>(in[d]) * (*options.output_ratio())[d]);
    EMBER_CHECK(out[d] > 0 && kernel[d] > 0 && out[d] + kernel[d] - 1 <= in[d], ValueError, name,
                "(): pool size ", kernel[d], " too large relative to input size ", in[d],
                " and output size ", out[d], " (dim ", d, ")");
  }
  Tensor samples = options._random_samples();
  if (!samples.defined()) {
    samples = rand({n, c, dims}, TensorOptions(x.dtype()).device(x.device()));
  }
  EMBER_CHECK(
      samples.dim() == 3 && samples.size(0) == n && samples.size(1) == c && samples.size(2) == dims,
      ValueError, name, "(): expected _random_samples of shape [", n, ", ", c, ", ", dims,
      "], got ", samples.sizes());
  // The flat input position of every window element, [N, C, out..., kernel...]: the sum over
  // dims of the element's position along the dim times the dim's stride in the plane.
  std::vector<int64_t> full_shape = {n, c};
  full_shape.insert(full_shape.end(), out.begin(), out.end());
  full_shape.insert(full_shape.end(), kernel.begin(), kernel.end());
  Tensor index;
  int64_t stride = 1;
  for (int64_t d = dims - 1; d >= 0; --d) {
    // PyTorch's sample columns: in 2-D the width reads column 0; in 3-D dims read in order.
    const int64_t column = dims == 2 ? 1 - d : d;
    const Tensor starts = window_starts(samples.select(-1, column), in[d], kernel[d], out[d]);
    const Tensor offsets = arange(kernel[d], TensorOptions(kLong).device(x.device()));
    std::vector<int64_t> view(2 + 2 * dims, 1);
    view[0] = n;
    view[1] = c;
    view[2 + d] = out[d];
    view[2 + dims + d] = kernel[d];
    const Tensor pos = (starts.unsqueeze(-1) + offsets).reshape(view) * stride;
    index = index.defined() ? index + pos : pos;
    stride *= in[d];
  }
  int64_t points = 1, window = 1;
  for (int64_t d = 0; d < dims; ++d) {
    points *= out[d];
    window *= kernel[d];
  }
  const Tensor flat_index = index.expand(full_shape).reshape({n, c, points * window});
  const Tensor values =
      gather(x.reshape({n, c, -1}), 2, flat_index).reshape({n, c, points, window});
  auto [maxima, which] = values.max(-1);
  Tensor positions =
      flat_index.reshape({n, c, points, window}).gather(3, which.unsqueeze(-1)).squeeze(-1);
  std::vector<int64_t> result = {n, c};
  result.insert(result.end(), out.begin(), out.end());
  maxima = maxima.reshape(result);
  positions = positions.reshape(result);
  if (!batched) return {maxima.squeeze(0), positions.squeeze(0)};
  return {maxima, positions};
}

template <size_t D>
void check_options(const FractionalMaxPoolOptions<D>& o, const char* name) {
  EMBER_CHECK(o.output_size() || o.output_ratio(), ValueError, name,
              " requires specifying either an output size, or a pooling ratio");
  EMBER_CHECK(!(o.output_size() && o.output_ratio()), ValueError,
              "only one of output_size and output_ratio may be specified");
  if (o.output_ratio()) {
    for (double r : o.output_ratio()->vec()) {
      EMBER_CHECK(r > 0 && r < 1, ValueError, "output_ratio must be between 0 and 1 (got ",
                  *o.output_ratio(), ")");
    }
  }
}

}  // namespace

namespace functional {
std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const Tensor& input, const FractionalMaxPool2dFuncOptions& options) {
  return fractional_max_pool(input, options, "fractional_max_pool2d");
}
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const Tensor& input, const FractionalMaxPool3dFuncOptions& options) {
  return fractional_max_pool(input, options, "fractional_max_pool3d");
}
}  // namespace functional

FractionalMaxPool2dImpl::FractionalMaxPool2dImpl(FractionalMaxPool2dOptions options_)
    : options(std::move(options_)) {
  reset();
}
void FractionalMaxPool2dImpl::reset() {
  _random_samples = register_buffer("_random_samples", options._random_samples());
  check_options(options, "FractionalMaxPool2d");
}
Tensor FractionalMaxPool2dImpl::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}
std::tuple<Tensor, Tensor> FractionalMaxPool2dImpl::forward_with_indices(const Tensor& input) {
  FractionalMaxPool2dOptions o = options;
  o._random_samples(_random_samples);
  return functional::fractional_max_pool2d_with_indices(input, o);
}
void FractionalMaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::FractionalMaxPool2d()";
}

FractionalMaxPool3dImpl::FractionalMaxPool3dImpl(FractionalMaxPool3dOptions options_)
    : options(std::move(options_)) {
  reset();
}
void FractionalMaxPool3dImpl::reset() {
  _random_samples = register_buffer("_random_samples", options._random_samples());
  check_options(options, "FractionalMaxPool3d");
}
Tensor FractionalMaxPool3dImpl::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}
std::tuple<Tensor, Tensor> FractionalMaxPool3dImpl::forward_with_indices(const Tensor& input) {
  FractionalMaxPool3dOptions o = options;
  o._random_samples(_random_samples);
  return functional::fractional_max_pool3d_with_indices(input, o);
}
void FractionalMaxPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::FractionalMaxPool3d()";
}

}  // namespace ember::nn
