// Products of whole tensors: kron (an outer product with each pair of dims interleaved, then
// merged), tensordot (a matrix product after moving the contracted dims together) and cross (the
// 3-vector cross product along a dim, from narrow, mul and cat). Gradients come from the ops.
#include <algorithm>

#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {

Tensor kron(const Tensor& self, const Tensor& other) {
  const int64_t n = std::max(self.dim(), other.dim());
  // a as [a0, 1, a1, 1, ...] times b as [1, b0, 1, b1, ...] is [a0, b0, a1, b1, ...].
  std::vector<int64_t> a_shape, b_shape, merged;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t sa = i < n - self.dim() ? 1 : self.size(i - (n - self.dim()));
    const int64_t sb = i < n - other.dim() ? 1 : other.size(i - (n - other.dim()));
    a_shape.insert(a_shape.end(), {sa, 1});
    b_shape.insert(b_shape.end(), {1, sb});
    merged.push_back(sa * sb);
  }
  return self.reshape(a_shape).mul(other.reshape(b_shape)).reshape(merged);
}

Tensor Tensor::kron(const Tensor& other) const {
  return ember::kron(*this, other);
}

Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self,
                 IntArrayRef dims_other) {
  EMBER_CHECK(dims_self.size() == dims_other.size(), ValueError,
              "both dimension lists should have same length (got ", dims_self, " and ", dims_other,
              ")");
  EMBER_CHECK(self.dtype() == other.dtype(), TypeError, "both inputs should have same dtype (got ",
              python_name(self.dtype()), " and ", python_name(other.dtype()), ")");
  Tensor a = self, b = other;
  std::vector<bool> contracted_a(self.dim(), false), contracted_b(other.dim(), false);
  std::vector<int64_t> order_a, order_b;  // contracted dims, paired
  int64_t size = 1;
  for (size_t i = 0; i < dims_self.size(); ++i) {
    const int64_t da = wrap_dim(dims_self[i], self.dim(), "tensordot");
    const int64_t db = wrap_dim(dims_other[i], other.dim(), "tensordot");
    EMBER_CHECK(!contracted_a[da], ValueError, "dim ", da,
                " appears multiple times in the list of dims");
    EMBER_CHECK(!contracted_b[db], ValueError, "dim ", db,
                " appears multiple times in the list of dims");
    contracted_a[da] = contracted_b[db] = true;
    const int64_t sa = self.size(da), sb = other.size(db);
    // A size-1 dim contracted with a larger one broadcasts: the other side is summed over it.
    if (sb == 1) {
      a = a.sum({da}, true);
    } else if (sa == 1) {
      b = b.sum({db}, true);
    } else {
      EMBER_CHECK(sa == sb, ValueError, "contracted dimensions need to match, but first has size ",
                  sa, " in dim ", dims_self[i], " and second has size ", sb, " in dim ",
                  dims_other[i]);
    }
    order_a.push_back(da);
    order_b.push_back(db);
    size *= std::min(sa, sb);
  }
  std::vector<int64_t> free_a, free_b, out_shape;
  int64_t rows = 1, cols = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (contracted_a[d]) continue;
    free_a.push_back(d);
    out_shape.push_back(self.size(d));
    rows *= self.size(d);
  }
  for (int64_t d = 0; d < other.dim(); ++d) {
    if (contracted_b[d]) continue;
    free_b.push_back(d);
    out_shape.push_back(other.size(d));
    cols *= other.size(d);
  }
  std::vector<int64_t> perm_a = free_a, perm_b = order_b;
  perm_a.insert(perm_a.end(), order_a.begin(), order_a.end());
  perm_b.insert(perm_b.end(), free_b.begin(), free_b.end());
  const Tensor ma = a.permute(perm_a).reshape({rows, size});
  const Tensor mb = b.permute(perm_b).reshape({size, cols});
  return ma.mm(mb).reshape(out_shape);
}

Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  int64_t d = 0;
  if (dim) {
    d = *dim;
  } else {
    // PyTorch 1.13's deprecated default: the first dim of size 3.
    const auto sizes = self.sizes();
    const auto it = std::find(sizes.begin(), sizes.end(), 3);
    EMBER_CHECK(it != sizes.end(), ValueError, "no dimension of size 3 in input (sizes ", sizes,
                ")");
    d = it - sizes.begin();
  }
  EMBER_CHECK(self.dim() == other.dim(), ValueError,
              "linalg.cross: inputs must have the same number of dimensions. (got ", self.sizes(),
              " and ", other.sizes(), ")");
  d = wrap_dim(d, self.dim(), "cross");
  EMBER_CHECK(self.size(d) == 3 && other.size(d) == 3, ValueError,
              "linalg.cross: inputs dimension ", d, " must have length 3. Got ", self.size(d),
              " and ", other.size(d));
  auto part = [d](const Tensor& t, int64_t i) { return t.narrow(d, i, 1); };
  const Tensor a0 = part(self, 0), a1 = part(self, 1), a2 = part(self, 2);
  const Tensor b0 = part(other, 0), b1 = part(other, 1), b2 = part(other, 2);
  return cat({a1.mul(b2).sub(a2.mul(b1)), a2.mul(b0).sub(a0.mul(b2)), a0.mul(b1).sub(a1.mul(b0))},
             d);
}

Tensor Tensor::cross(const Tensor& other, std::optional<int64_t> dim) const {
  return ember::cross(*this, other, dim);
}

}  // namespace ember
