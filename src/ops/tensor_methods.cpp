// Tensor methods that libtorch spells as methods of free functions Ember defines elsewhere: each
// forwards, so a renamed libtorch program finds x.gather(1, i) as well as gather(x, 1, i).
#include "ember/ops.h"

namespace ember {

Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  return ember::gather(*this, dim, index);
}
Tensor Tensor::logsumexp(IntArrayRef dims, bool keepdim) const {
  return ember::logsumexp(*this, dims, keepdim);
}
Tensor Tensor::outer(const Tensor& o) const {
  return ember::outer(*this, o);
}
Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmm(*this, mat1, mat2, beta, alpha);
}

}  // namespace ember
