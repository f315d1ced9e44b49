// flip(dims): an index_select with a reversed index along each flipped dim (its gradient is the
// same flip, through index_select's backward).
#include <vector>

#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {

Tensor flip(const Tensor& a, IntArrayRef dims) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(a.dim(), 1)), false);
  Tensor out = a;
  for (int64_t dim : dims) {
    const int64_t d = wrap_dim(dim, a.dim(), "flip");
    EMBER_CHECK(!seen[d], ValueError, "flip(): dim ", d,
                " appears multiple times in the list of dims ", dims);
    seen[d] = true;
    if (a.dim() == 0 || a.size(d) < 2) continue;
    const int64_t n = a.size(d);
    out =
        out.index_select(d, arange(n - 1, -1, -1, TensorOptions().dtype(kLong).device(a.device())));
  }
  return out.is_same(a) ? a.clone() : out;  // a new tensor, as PyTorch, even when nothing moved
}

Tensor Tensor::flip(IntArrayRef dims) const {
  return ember::flip(*this, dims);
}

}  // namespace ember
