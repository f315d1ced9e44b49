// ember::pad (F::pad) and the padding modules over it: constant padding by concatenating filled
// blocks (negative amounts crop), reflect / replicate / circular padding by gathering each padded
// dim through an index table (index_select), whose gradient adds every copy back onto its source
// element.
#include <algorithm>
#include <string>
#include <vector>

#include "ember/nn/modules/padding.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"

namespace ember {
namespace {

// Source position of every output position along a dim of size n padded by (before, after).
Tensor source_positions(int64_t n, int64_t before, int64_t after, const std::string& mode,
                        Device device) {
  std::vector<int64_t> idx;
  for (int64_t o = -before; o < n + after; ++o) {
    int64_t i = o;
    if (mode == "reflect") {
      // Mirror without repeating the edge: -1 -> 1, n -> n - 2.
      if (i < 0) i = -i;
      if (i >= n) i = 2 * (n - 1) - i;
    } else if (mode == "replicate") {
      i = std::min(std::max(i, int64_t{0}), n - 1);
    } else {  // circular
      i = ((i % n) + n) % n;
    }
    idx.push_back(i);
  }
  return tensor(idx, TensorOptions(kLong).device(device));
}

Tensor constant_pad(const Tensor& input, IntArrayRef pad, double value) {
  Tensor out = input;
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    const int64_t dim = input.dim() - 1 - static_cast<int64_t>(k);
    const int64_t before = pad[2 * k], after = pad[2 * k + 1];
    const int64_t n = out.size(dim);
    EMBER_CHECK(n + before + after >= 0, ValueError, "pad: the padding (", before, ", ", after,
                ") of dim ", dim, " leaves a negative size ", n + before + after,
                " for the input of shape ", input.sizes());
    // Negative amounts crop.
    const int64_t crop_before = std::max(-before, int64_t{0});
    const int64_t crop_after = std::max(-after, int64_t{0});
    if (crop_before + crop_after > 0) {
      out = out.narrow(dim, std::min(crop_before, n),
                       std::max(n - crop_before - crop_after, int64_t{0}));
    }
    std::vector<Tensor> parts;
    parts.reserve(3);  // no reallocation (and none of GCC 12's false -Wuse-after-free in it)
    auto block = [&](int64_t size) {
      std::vector<int64_t> shape = out.sizes().vec();
      shape[dim] = size;
      return full(shape, value, out.options().requires_grad(false));
    };
    if (before > 0) parts.push_back(block(before));
    parts.push_back(out);
    if (after > 0) parts.push_back(block(after));
    if (parts.size() > 1) out = cat(parts, dim);
  }
  return out;
}

}  // namespace

Tensor pad(const Tensor& input, IntArrayRef pad, const std::string& mode,
           std::optional<double> value) {
  EMBER_CHECK(pad.size() % 2 == 0, ValueError, "pad: padding length must be divisible by 2, got ",
              pad.size(), " values ", pad);
  EMBER_CHECK(static_cast<int64_t>(pad.size()) <= 2 * input.dim(), ValueError,
              "pad: padding length too large: ", pad.size(), " values for an input of shape ",
              input.sizes());
  if (mode == "constant") return constant_pad(input, pad, value.value_or(0.0));
  EMBER_CHECK(mode == "reflect" || mode == "replicate" || mode == "circular", ValueError,
              "pad: mode must be constant, reflect, replicate or circular, got '", mode, "'");
  EMBER_CHECK(!value.has_value() || *value == 0, ValueError, "pad: padding mode \"", mode,
              "\" doesn't take in value argument, got value ", value.value_or(0));
  const int64_t dims = static_cast<int64_t>(pad.size()) / 2;
  // PyTorch 1.13's rule: d padded dims need a batched or unbatched (d + 2)-dim input.
  EMBER_CHECK(dims >= 1 && dims <= 3 && (input.dim() == dims + 1 || input.dim() == dims + 2),
              NotImplementedError, "pad: mode '", mode,
              "' supports padding the last 1, 2 or 3 dims of a 2D-5D input (the padded dims "
              "plus one or two leading dims), got ",
              pad.size(), " padding values for an input of shape ", input.sizes());
  Tensor out = input;
  for (int64_t k = 0; k < dims; ++k) {
    const int64_t dim = input.dim() - 1 - k;
    const int64_t before = pad[2 * k], after = pad[2 * k + 1];
    const int64_t n = input.size(dim);
    if (mode == "reflect") {
      EMBER_CHECK(before < n && after < n, ValueError, "pad: reflect padding (", before, ", ",
                  after, ") must be less than the size ", n, " of dim ", dim,
                  " of the input of shape ", input.sizes());
    } else if (mode == "circular") {
      EMBER_CHECK(before <= n && after <= n, ValueError, "pad: circular padding (", before, ", ",
                  after, ") may be at most the size ", n, " of dim ", dim,
                  " of the input of shape ", input.sizes());
    }
    EMBER_CHECK(n > 0 && before >= 0 && after >= 0, ValueError, "pad: mode '", mode,
                "' needs a non-empty dim and non-negative padding, got padding (", before, ", ",
                after, ") of dim ", dim, " of the input of shape ", input.sizes());
    out = index_select(out, dim, source_positions(n, before, after, mode, input.device()));
  }
  return out;
}

}  // namespace ember

// ---- the padding modules ----

namespace ember::nn::detail {

template <size_t D, typename Derived, typename Options>
Tensor PadImpl<D, Derived, Options>::forward(const Tensor& input) {
  std::optional<double> value;
  if constexpr (requires(const Options& o) { o.value(); }) value = options.value();
  return pad(input, options.padding().vec(), Derived::kMode, value);
}

template <size_t D, typename Derived, typename Options>
void PadImpl<D, Derived, Options>::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::" << Derived::kName << "(padding=" << options.padding();
  if constexpr (requires(const Options& o) { o.value(); }) stream << ", value=" << options.value();
  stream << ")";
}

template class PadImpl<1, ReflectionPad1dImpl, ReflectionPadOptions<1>>;
template class PadImpl<2, ReflectionPad2dImpl, ReflectionPadOptions<2>>;
template class PadImpl<3, ReflectionPad3dImpl, ReflectionPadOptions<3>>;
template class PadImpl<1, ReplicationPad1dImpl, ReplicationPadOptions<1>>;
template class PadImpl<2, ReplicationPad2dImpl, ReplicationPadOptions<2>>;
template class PadImpl<3, ReplicationPad3dImpl, ReplicationPadOptions<3>>;
template class PadImpl<2, ZeroPad2dImpl, ZeroPad2dOptions>;
template class PadImpl<1, ConstantPad1dImpl, ConstantPadOptions<1>>;
template class PadImpl<2, ConstantPad2dImpl, ConstantPadOptions<2>>;
template class PadImpl<3, ConstantPad3dImpl, ConstantPadOptions<3>>;

}  // namespace ember::nn::detail
