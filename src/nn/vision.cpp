// F::affine_grid and F::grid_sample (spatial transformer networks, deformable sampling), composed
// from device-agnostic ops: the grid's coordinates are mapped to pixel positions (with PyTorch's
// align_corners and padding rules), each corner of the interpolation cell is read with one
// gather over the flattened spatial dims, and the corners are summed with their weights and
// in-bounds masks. Autograd differentiates both input (gather's scatter-add) and grid (through
// the weights), so there is no backward to write and it runs on every device.
#include <cmath>
#include <variant>

#include "ember/nn/functional.h"
#include "ember/ops.h"

namespace ember::nn::functional {
namespace {

// -1 .. 1 in `steps` points, pulled in to pixel centres unless align_corners (PyTorch's rule).
Tensor base_coordinates(int64_t steps, bool align_corners, const TensorOptions& o) {
  if (steps <= 1) return zeros({steps}, o);
  Tensor r = linspace(-1.0, 1.0, steps, o);
  // Multiply, then divide, as PyTorch does: the grid's low bits decide which side of a pixel
  // centre a sample falls on, and so which neighbour's slope the gradient takes there.
  if (!align_corners) r = r * static_cast<double>(steps - 1) / static_cast<double>(steps);
  return r;
}

// The pixel position of normalised coordinates along a dim of `size` pixels, in the operation
// order of PyTorch 1.13's CPU kernels (its vectorised 2-D kernel and its generic 3-D one differ):
// on a grid of pixel centres the low bits decide which side of a centre a sample falls on, and so
// whose slope its gradient takes.
Tensor unnormalize(const Tensor& coord, int64_t size, bool align_corners, bool volume) {
  const double s = static_cast<double>(size);
  if (volume) return align_corners ? (coord + 1) / 2 * (s - 1) : ((coord + 1) * s - 1) / 2;
  return align_corners ? coord * ((s - 1) / 2) + (s - 1) / 2 : coord * (s / 2) + (s - 1) / 2;
}

// Reflects positions into [twice_low / 2, twice_high / 2], repeatedly (PyTorch's
// reflect_coordinates).
Tensor reflect(const Tensor& in, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return zeros_like(in);
  const double low = twice_low / 2.0, span = (twice_high - twice_low) / 2.0;
  Tensor x = abs(in - low);
  Tensor extra = fmod(x, Scalar(span));
  Tensor flips = floor(x / span);
  Tensor even = eq(fmod(flips, Scalar(2.0)), 0);
  return where(even, extra + low, span - extra + low);
}

// Where a sample along a dim of `size` pixels reads, after the padding mode.
Tensor source_position(const Tensor& coord, int64_t size, bool align_corners, bool volume,
                       const GridSampleFuncOptions::padding_mode_t& padding) {
  Tensor pos = unnormalize(coord, size, align_corners, volume);
  if (std::holds_alternative<enumtype::kZeros>(padding)) return pos;
  if (std::holds_alternative<enumtype::kReflection>(padding)) {
    pos = align_corners ? reflect(pos, 0, 2 * (size - 1)) : reflect(pos, -1, 2 * size - 1);
  }
  return pos.clamp(0.0, static_cast<double>(size - 1));
}

int64_t product(const std::vector<int64_t>& sizes) {
  int64_t p = 1;
  for (int64_t s : sizes) p *= s;
  return p;
}

}  // namespace

Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners) {
  EMBER_CHECK(is_floating_point(theta.dtype()), TypeError,
              "Expected theta to have floating point type, but got ", to_string(theta.dtype()));
  const int64_t spatial = static_cast<int64_t>(size.size()) - 2;
  EMBER_CHECK(spatial == 2 || spatial == 3, ValueError,
              "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
              "respectively. Got size ",
              size, ".");
  const bool shape_ok = theta.dim() == 3 && theta.size(1) == spatial &&
                        theta.size(2) == spatial + 1 && theta.size(0) == size[0];
  EMBER_CHECK(shape_ok, ValueError, "Expected a batch of ", spatial,
              "D affine matrices of shape Nx", spatial, "x", spatial + 1, " for size ", size,
              ". Got ", theta.sizes(), ".");
  for (int64_t s : size) {
    EMBER_CHECK(s > 0, ValueError, "Expected non-zero, positive output size. Got ", size);
  }
  const TensorOptions o = TensorOptions(theta.dtype()).device(theta.device());
  // base[..., i] is the coordinate along spatial dim i counted from the last (x first), then 1.
  std::vector<int64_t> grid_shape(size.begin() + 2, size.end());
  std::vector<Tensor> columns;
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t dim = spatial - 1 - i;  // x is the last spatial dim
    std::vector<int64_t> line(spatial, 1);
    line[dim] = grid_shape[dim];
    columns.push_back(
        base_coordinates(grid_shape[dim], align_corners, o).reshape(line).expand(grid_shape));
  }
  columns.push_back(ones(grid_shape, o));
  const int64_t points = product(grid_shape);
  Tensor base =
      stack(columns, -1).reshape({1, points, spatial + 1}).expand({size[0], points, spatial + 1});
  std::vector<int64_t> out_shape = {size[0]};
  out_shape.insert(out_shape.end(), grid_shape.begin(), grid_shape.end());
  out_shape.push_back(spatial);
  return bmm(base, theta.transpose(1, 2)).reshape(out_shape);
}

Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options) {
  EMBER_CHECK(input.device() == grid.device(), ValueError,
              "grid_sampler(): expected input and grid to be on same device, but input is on ",
              input.device().str(), " and grid is on ", grid.device().str());
  EMBER_CHECK(input.dtype() == grid.dtype(), TypeError,
              "grid_sampler(): expected input and grid to have same dtype, but input has ",
              to_string(input.dtype()), " and grid has ", to_string(grid.dtype()));
  EMBER_CHECK((input.dim() == 4 || input.dim() == 5) && input.dim() == grid.dim(), ValueError,
              "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
              "but got input with sizes ",
              input.sizes(), " and grid with sizes ", grid.sizes());
  EMBER_CHECK(input.size(0) == grid.size(0), ValueError,
              "grid_sampler(): expected grid and input to have same batch size, but got input "
              "with sizes ",
              input.sizes(), " and grid with sizes ", grid.sizes());
  const int64_t spatial = input.dim() - 2;
  EMBER_CHECK(grid.size(-1) == spatial, ValueError, "grid_sampler(): expected grid to have size ",
              spatial, " in last dimension, but got grid with sizes ", grid.sizes());
  for (int64_t d = 2; d < input.dim(); ++d) {
    EMBER_CHECK(input.size(d) > 0, ValueError,
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                "has sizes ",
                input.sizes(), " with dimension ", d, " being empty");
  }
  const bool align = options.align_corners().value_or(false);
  const bool nearest = std::holds_alternative<enumtype::kNearest>(options.mode());
  const int64_t n = input.size(0), channels = input.size(1);
  std::vector<int64_t> in_sizes(input.sizes().begin() + 2, input.sizes().end());
  std::vector<int64_t> out_spatial(grid.sizes().begin() + 1, grid.sizes().end() - 1);
  const int64_t points = product(out_spatial);
  const int64_t plane = product(in_sizes);

  // Positions per spatial dim, in input order (grid's last column counts from x, the last dim).
  std::vector<Tensor> pos(spatial);
  for (int64_t d = 0; d < spatial; ++d) {
    Tensor coord = grid.select(-1, spatial - 1 - d).reshape({n, points});
    pos[d] = source_position(coord, in_sizes[d], align, spatial == 3, options.padding_mode());
  }
  const Tensor flat = input.reshape({n, channels, plane});
  // Reads the cell corner at integer positions `at`, weighted, zero where out of bounds.
  auto read = [&](const std::vector<Tensor>& at, const Tensor& weight) {
    Tensor index = zeros({n, points}, TensorOptions(kLong).device(input.device()));
    Tensor inside = ones({n, points}, TensorOptions(kBool).device(input.device()));
    for (int64_t d = 0; d < spatial; ++d) {
      inside = logical_and(inside, logical_and(ge(at[d], 0), le(at[d], in_sizes[d] - 1)));
      index =
          index * in_sizes[d] + at[d].clamp(0.0, static_cast<double>(in_sizes[d] - 1)).to(kLong);
    }
    Tensor values = gather(flat, 2, index.unsqueeze(1).expand({n, channels, points}));
    return values * where(inside, weight, Scalar(0.0)).unsqueeze(1);
  };
  Tensor out;
  if (nearest) {
    std::vector<Tensor> at(spatial);
    for (int64_t d = 0; d < spatial; ++d) at[d] = round(pos[d]).detach();  // half to even
    out = read(at, ones({n, points}, TensorOptions(input.dtype()).device(input.device())));
  } else {
    std::vector<Tensor> low(spatial), frac(spatial);
    for (int64_t d = 0; d < spatial; ++d) {
      low[d] = floor(pos[d]).detach();
      frac[d] = pos[d] - low[d];
    }
    for (int64_t corner = 0; corner < (int64_t{1} << spatial); ++corner) {
      std::vector<Tensor> at(spatial);
      Tensor weight;
      for (int64_t d = 0; d < spatial; ++d) {
        const bool high = (corner >> d) & 1;
        at[d] = high ? low[d] + 1 : low[d];
        Tensor w = high ? frac[d] : 1 - frac[d];
        weight = weight.defined() ? weight * w : w;
      }
      Tensor part = read(at, weight);
      out = out.defined() ? out + part : part;
    }
  }
  std::vector<int64_t> out_shape = {n, channels};
  out_shape.insert(out_shape.end(), out_spatial.begin(), out_spatial.end());
  return out.reshape(out_shape);
}

}  // namespace ember::nn::functional
