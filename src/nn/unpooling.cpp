// max_unpool1d/2d/3d and MaxUnpool1d/2d/3d: each input value copied to its max-pool index in a
// zero output (index_copy over the flattened planes, so the gradient is the gather at the
// indices, as PyTorch's). Indices are positions within each channel's plane, as the max pools
// return them.
#include <sstream>

#include "ember/nn/functional.h"
#include "ember/nn/modules/pooling.h"
#include "ember/ops.h"
#include "nn/describe.h"

namespace ember {
namespace {

// PyTorch prints the output plane as "4x4" (and a 1-D one as "4x1").
std::string plane_text(IntArrayRef out) {
  std::ostringstream os;
  for (size_t i = 0; i < out.size(); ++i) os << (i ? "x" : "") << out[i];
  if (out.size() == 1) os << "x1";
  return os.str();
}

Tensor max_unpool_nd(const Tensor& input, const Tensor& indices, IntArrayRef output_size,
                     const char* op) {
  const int64_t D = static_cast<int64_t>(output_size.size());
  EMBER_CHECK(input.dim() == D + 1 || input.dim() == D + 2, ValueError, op, "(): expected a ",
              D + 1, "-D (unbatched) or ", D + 2, "-D (batched) input, got shape ", input.sizes());
  EMBER_CHECK(indices.dtype() == kLong, ValueError,
              "elements in indices should be type int64 but got: ", to_string(indices.dtype()));
  EMBER_CHECK(indices.sizes() == input.sizes(), ValueError,
              "Expected shape of indices to be same as that of the input tensor (", input.sizes(),
              ") but got indices tensor with shape: ", indices.sizes());
  EMBER_CHECK(input.is_floating_point(), TypeError, op, "(): expected a floating point input, got ",
              python_name(input.dtype()));
  int64_t plane = 1;
  for (int64_t s : output_size) {
    EMBER_CHECK(s > 0, ValueError, op, "(): output_size must be positive, got ", output_size);
    plane *= s;
  }
  const int64_t lead = input.dim() - D;  // (N, C) or (C)
  int64_t planes = 1, L = 1;
  for (int64_t d = 0; d < input.dim(); ++d) (d < lead ? planes : L) *= input.size(d);
  if (indices.is_cpu() && indices.numel() > 0) {  // a device check would cost a sync
    const int64_t lo = indices.min().item<int64_t>(), hi = indices.max().item<int64_t>();
    const int64_t bad = lo < 0 ? lo : hi;
    EMBER_CHECK(lo >= 0 && hi < plane, ValueError, "Found an invalid max index: ", bad,
                " (output volumes are of size ", plane_text(output_size));
  }
  // Index p * plane + index of every element in the flattened output.
  const Tensor offsets =
      arange(planes, TensorOptions(kLong).device(indices.device())).mul(plane).view({planes, 1});
  const Tensor flat_index = (indices.reshape({planes, L}) + offsets).reshape({-1});
  DimVector shape;
  for (int64_t d = 0; d < lead; ++d) shape.push_back(input.size(d));
  for (int64_t s : output_size) shape.push_back(s);
  return zeros({planes * plane}, input.options())
      .index_copy(0, flat_index, input.reshape({-1}))
      .view(shape);
}

}  // namespace

Tensor max_unpool1d(const Tensor& input, const Tensor& indices, ExpandingArray<1> output_size) {
  return max_unpool_nd(input, indices, IntArrayRef(output_size.data(), 1), "max_unpool1d");
}
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, ExpandingArray<2> output_size) {
  return max_unpool_nd(input, indices, IntArrayRef(output_size.data(), 2), "max_unpool2d");
}
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, ExpandingArray<3> output_size) {
  return max_unpool_nd(input, indices, IntArrayRef(output_size.data(), 3), "max_unpool3d");
}

namespace nn {
namespace {

// The spatial output size: (in - 1) * stride - 2 * padding + kernel_size per dim, or
// output_size (D sizes, or with N and C in front), which must lie strictly within one stride of
// that default, as PyTorch's _unpool_output_size.
template <size_t D>
ExpandingArray<D> unpool_output_size(const Tensor& input, ExpandingArray<D> kernel_size,
                                     ExpandingArray<D> stride, ExpandingArray<D> padding,
                                     const std::optional<std::vector<int64_t>>& output_size) {
  EMBER_CHECK(input.dim() >= static_cast<int64_t>(D), ValueError, "max_unpool", D,
              "d(): expected an input with at least ", D, " dims, got shape ", input.sizes());
  ExpandingArray<D> size(0);
  for (size_t d = 0; d < D; ++d) {
    const int64_t in = input.size(input.dim() - static_cast<int64_t>(D) + static_cast<int64_t>(d));
    size[d] = (in - 1) * stride[d] - 2 * padding[d] + kernel_size[d];
  }
  if (!output_size) return size;
  std::vector<int64_t> wanted = *output_size;
  if (wanted.size() == D + 2) wanted.erase(wanted.begin(), wanted.begin() + 2);
  EMBER_CHECK(wanted.size() == D, ValueError, "output_size should be a sequence containing ", D,
              " or ", D + 2, " elements, but it has a length of '", output_size->size(), "'");
  for (size_t d = 0; d < D; ++d) {
    const int64_t low = size[d] - stride[d], high = size[d] + stride[d];
    EMBER_CHECK(wanted[d] > low && wanted[d] < high, ValueError, "invalid output_size \"",
                IntArrayRef(wanted), "\" (dim ", d, " must be between ", low, " and ", high, ")");
    size[d] = wanted[d];
  }
  return size;
}

}  // namespace

namespace functional {

Tensor max_unpool1d(const Tensor& input, const Tensor& indices,
                    const MaxUnpool1dFuncOptions& options) {
  return ember::max_unpool1d(input, indices,
                             unpool_output_size<1>(input, options.kernel_size(), options.stride(),
                                                   options.padding(), options.output_size()));
}
Tensor max_unpool2d(const Tensor& input, const Tensor& indices,
                    const MaxUnpool2dFuncOptions& options) {
  return ember::max_unpool2d(input, indices,
                             unpool_output_size<2>(input, options.kernel_size(), options.stride(),
                                                   options.padding(), options.output_size()));
}
Tensor max_unpool3d(const Tensor& input, const Tensor& indices,
                    const MaxUnpool3dFuncOptions& options) {
  return ember::max_unpool3d(input, indices,
                             unpool_output_size<3>(input, options.kernel_size(), options.stride(),
                                                   options.padding(), options.output_size()));
}

}  // namespace functional

template <size_t D, typename Derived>
Tensor MaxUnpoolImpl<D, Derived>::forward(const Tensor& input, const Tensor& indices,
                                          const std::optional<std::vector<int64_t>>& output_size) {
  functional::MaxUnpoolFuncOptions<D> o(options.kernel_size());
  o.stride(options.stride()).padding(options.padding()).output_size(output_size);
  if constexpr (D == 1) return functional::max_unpool1d(input, indices, o);
  if constexpr (D == 2) return functional::max_unpool2d(input, indices, o);
  if constexpr (D == 3) return functional::max_unpool3d(input, indices, o);
}

template <size_t D, typename Derived>
void MaxUnpoolImpl<D, Derived>::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::MaxUnpool" << D << "d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
}

template class MaxUnpoolImpl<1, MaxUnpool1dImpl>;
template class MaxUnpoolImpl<2, MaxUnpool2dImpl>;
template class MaxUnpoolImpl<3, MaxUnpool3dImpl>;

}  // namespace nn
}  // namespace ember
