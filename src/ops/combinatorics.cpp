// cartesian_prod and combinations: rows of elements picked from 1-D tensors by grids of
// positions (meshgrid), combinations keeping the grid points whose positions increase. Composed
// from meshgrid, masks and index, so gradients flow to the elements picked.
#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {

namespace {

void check_vector(const Tensor& t, const char* op) {
  EMBER_CHECK(t.dim() == 1, ValueError, op, ": Expect a 1D vector, but got shape ", t.sizes());
}

}  // namespace

Tensor cartesian_prod(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), ValueError, "cartesian_prod expects a non-empty TensorList");
  for (const Tensor& t : tensors) check_vector(t, "cartesian_prod");
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> columns;
  for (const Tensor& g : meshgrid(tensors, "ij")) columns.push_back(g.flatten());
  return stack(columns, 1);
}

Tensor combinations(const Tensor& self, int64_t r, bool with_replacement) {
  check_vector(self, "combinations");
  EMBER_CHECK(r >= 0, ValueError, "Expect a non-negative number, but got ", r);
  if (r == 0) return empty({0}, self.options());
  const int64_t n = self.numel();
  const Tensor positions = arange(n, TensorOptions(kLong).device(self.device()));
  const std::vector<Tensor> grids = meshgrid(std::vector<Tensor>(r, positions), "ij");
  // Grid points in row-major order with positions increasing (non-decreasing with
  // replacement) are the combinations in itertools' order.
  Tensor keep = ones(grids[0].sizes(), TensorOptions(kBool).device(self.device()));
  for (int64_t i = 0; i + 1 < r; ++i) {
    keep =
        keep.logical_and(with_replacement ? grids[i].le(grids[i + 1]) : grids[i].lt(grids[i + 1]));
  }
  std::vector<Tensor> columns;
  for (const Tensor& g : grids) columns.push_back(self.index({g.index({keep})}));
  return stack(columns, 1);
}

}  // namespace ember
