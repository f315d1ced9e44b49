// nonzero and one-argument where: the coordinates of the nonzero elements, from the backends'
// nonzero primitive over a contiguous bool mask (count, then compact).
#include "core/backend.h"
#include "ember/ops.h"

namespace ember {

Tensor nonzero(const Tensor& a) {
  Tensor mask = (a.dtype() == kBool ? a : a.ne(0)).contiguous();
  return backend_for(mask).nonzero(mask);
}

Tensor Tensor::nonzero() const {
  return ember::nonzero(*this);
}

Tensor argwhere(const Tensor& a) {
  return nonzero(a);
}
Tensor Tensor::argwhere() const {
  return ember::nonzero(*this);
}

std::vector<Tensor> where(const Tensor& condition) {
  // PyTorch's nonzero(as_tuple=True): one 1-D index tensor per dim (one for a 0-dim condition).
  Tensor nz = nonzero(condition.dim() == 0 ? condition.unsqueeze(0) : condition);
  return nz.unbind(1);
}

}  // namespace ember
