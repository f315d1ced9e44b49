// F::interpolate for the nearest, nearest-exact and (bi/tri)linear modes, one spatial dim at a
// time: nearest modes gather source positions (index_select); linear modes mix the two
// neighbouring positions with per-position weights, which for bilinear and trilinear gives the
// same products of weights as PyTorch's kernels. The source positions follow PyTorch's
// UpSample.h arithmetic, in float for float inputs (its opmath type), so rounding picks the
// same pixels.
#include <cmath>
#include <string>
#include <vector>

#include "ember/nn/functional.h"
#include "ember/nn/modules/upsampling.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "nn/describe.h"

namespace ember::nn::functional {
namespace {

// PyTorch's compute_scales_value: the given scale factor's inverse, else input/output.
template <typename T>
T inverse_scale(std::optional<double> scale, int64_t in, int64_t out) {
  return scale.has_value() && *scale > 0 ? static_cast<T>(1.0 / *scale)
                                         : static_cast<T>(in) / static_cast<T>(out);
}

std::vector<int64_t> nearest_positions(int64_t in, int64_t out, std::optional<double> scale,
                                       bool exact) {
  std::vector<int64_t> idx(out);
  const float s = inverse_scale<float>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    if (exact) {
      idx[o] =
          std::min(static_cast<int64_t>(std::floor((static_cast<float>(o) + 0.5f) * s)), in - 1);
    } else if (out == in) {
      idx[o] = o;
    } else if (out == 2 * in) {
      idx[o] = o >> 1;
    } else {
      idx[o] = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
    }
  }
  return idx;
}

struct LinearTaps {
  std::vector<int64_t> lo, hi;
  std::vector<double> w_lo, w_hi;
};

template <typename T>
LinearTaps linear_taps(int64_t in, int64_t out, std::optional<double> scale, bool align_corners) {
  LinearTaps taps;
  const T s = align_corners ? (out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0))
                            : inverse_scale<T>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    T src = align_corners ? s * static_cast<T>(o)
                          : std::max(s * (static_cast<T>(o) + T(0.5)) - T(0.5), T(0));
    const int64_t i0 = static_cast<int64_t>(src);
    const T l1 = src - static_cast<T>(i0);
    taps.lo.push_back(i0);
    taps.hi.push_back(i0 + (i0 < in - 1 ? 1 : 0));
    taps.w_lo.push_back(static_cast<double>(T(1) - l1));
    taps.w_hi.push_back(static_cast<double>(l1));
  }
  return taps;
}

// The output's spatial sizes (libtorch's _interp_output_size).
std::vector<int64_t> output_size(const Tensor& input, const InterpolateFuncOptions& o) {
  const int64_t spatial = input.dim() - 2;
  EMBER_CHECK(o.size().has_value() || o.scale_factor().has_value(), ValueError,
              "interpolate: either size or scale_factor should be defined");
  EMBER_CHECK(!(o.size().has_value() && o.scale_factor().has_value()), ValueError,
              "interpolate: only one of size or scale_factor should be defined");
  if (o.size()) {
    EMBER_CHECK(static_cast<int64_t>(o.size()->size()) == spatial, ValueError,
                "interpolate: size must have one value per spatial dim: the input of shape ",
                input.sizes(), " has ", spatial, ", size has ", o.size()->size());
    for (int64_t s : *o.size()) {
      EMBER_CHECK(s > 0, ValueError, "interpolate: output sizes must be positive, got size ",
                  IntArrayRef(*o.size()));
    }
    return *o.size();
  }
  EMBER_CHECK(static_cast<int64_t>(o.scale_factor()->size()) == spatial, ValueError,
              "interpolate: scale_factor shape must match input shape. Input is ", spatial,
              "D, scale_factor size is ", o.scale_factor()->size());
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < spatial; ++i) {
    const double f = (*o.scale_factor())[i];
    const auto s = static_cast<int64_t>(std::floor(static_cast<double>(input.size(i + 2)) * f));
    EMBER_CHECK(s > 0, ValueError, "interpolate: scale_factor ", f, " gives an empty dim ", i + 2,
                " for the input of shape ", input.sizes());
    sizes.push_back(s);
  }
  return sizes;
}

// A [n] weight vector shaped to broadcast along `dim` of a `rank`-dim tensor.
Tensor along(const std::vector<double>& w, int64_t dim, int64_t rank, const Tensor& like) {
  std::vector<int64_t> shape(rank, 1);
  shape[dim] = static_cast<int64_t>(w.size());
  return tensor(w, TensorOptions(like.dtype()).device(like.device())).reshape(shape);
}

}  // namespace

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options) {
  const std::string mode = enum_name(options.mode());
  const bool nearest = mode == "nearest" || mode == "nearest-exact";
  const bool linear = mode == "linear" || mode == "bilinear" || mode == "trilinear";
  if (nearest || mode == "area") {
    EMBER_CHECK(!options.align_corners().has_value(), ValueError,
                "interpolate: align_corners option can only be set with the interpolating "
                "modes: linear | bilinear | bicubic | trilinear (mode is ",
                mode, ")");
  }
  EMBER_CHECK(nearest || linear, NotImplementedError, "interpolate: mode '", mode,
              "' is not supported by Ember (nearest, nearest-exact, linear, bilinear and "
              "trilinear are)");
  EMBER_CHECK(!options.antialias(), NotImplementedError,
              "interpolate: antialias is not supported by Ember");
  EMBER_CHECK(input.dim() >= 3 && input.dim() <= 5, ValueError,
              "interpolate: Input Error: Only 3D, 4D and 5D input Tensors supported (got ",
              input.dim(), "D, shape ", input.sizes(), ") for the modes: nearest | linear | ",
              "bilinear | bicubic | trilinear (got ", mode, ")");
  const int64_t spatial = input.dim() - 2;
  const int64_t wanted = mode == "linear" ? 1 : mode == "bilinear" ? 2 : 3;
  EMBER_CHECK(!linear || spatial == wanted, ValueError, "interpolate: mode '", mode, "' expects a ",
              wanted + 2, "D input, got shape ", input.sizes());
  EMBER_CHECK(input.is_floating_point(), TypeError,
              "interpolate: expected a floating point input, got ", python_name(input.dtype()));

  const std::vector<int64_t> out_size = output_size(input, options);
  const bool use_scale =
      options.scale_factor().has_value() && !options.recompute_scale_factor().value_or(false);
  const bool align = options.align_corners().value_or(false);
  Tensor out = input;
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t dim = i + 2;
    const int64_t in = input.size(dim);
    EMBER_CHECK(in > 0, ValueError, "interpolate: the input of shape ", input.sizes(),
                " has an empty spatial dim ", dim);
    std::optional<double> scale;
    if (use_scale) scale = (*options.scale_factor())[i];
    if (nearest) {
      auto idx = nearest_positions(in, out_size[i], scale, mode == "nearest-exact");
      out = index_select(out, dim, tensor(idx, TensorOptions(kLong).device(input.device())));
      continue;
    }
    LinearTaps taps = input.dtype() == kDouble ? linear_taps<double>(in, out_size[i], scale, align)
                                               : linear_taps<float>(in, out_size[i], scale, align);
    const auto index = TensorOptions(kLong).device(input.device());
    Tensor lo = index_select(out, dim, tensor(taps.lo, index));
    Tensor hi = index_select(out, dim, tensor(taps.hi, index));
    out =
        lo * along(taps.w_lo, dim, out.dim(), input) + hi * along(taps.w_hi, dim, out.dim(), input);
  }
  return out;
}

}  // namespace ember::nn::functional

namespace ember::nn {

Tensor UpsampleImpl::forward(const Tensor& input) {
  functional::InterpolateFuncOptions o;
  o.size(options.size())
      .scale_factor(options.scale_factor())
      .align_corners(options.align_corners());
  std::visit([&o](auto mode) { o.mode(mode); }, options.mode());
  return functional::interpolate(input, o);
}

void UpsampleImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Upsample(";
  if (options.scale_factor()) {
    stream << "scale_factor=[";
    for (size_t i = 0; i < options.scale_factor()->size(); ++i) {
      stream << (i ? ", " : "") << (*options.scale_factor())[i];
    }
    stream << "]";
  } else if (options.size()) {
    stream << "size=" << IntArrayRef(*options.size());
  }
  stream << ", mode=" << detail::printed_enum_name(options.mode()) << ")";
}

}  // namespace ember::nn
