// Parts of matrices over the last two dims: the triangles (tril, triu), diag and trace. Composed
// from masks, masked_fill and the diagonal view, so their gradients are those ops' gradients.
#include "core/tensor_factory.h"
#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember {
namespace {

// True where column - row <= diagonal (lower) or >= diagonal (upper), on a rows x cols grid.
Tensor band_mask(int64_t rows, int64_t cols, Device device, int64_t diagonal, bool lower) {
  const TensorOptions opts = TensorOptions(kLong).device(device);
  const Tensor offset = arange(cols, opts).unsqueeze(0) - arange(rows, opts).unsqueeze(1);
  return lower ? offset.le(diagonal) : offset.ge(diagonal);
}

// The mask of what tril/triu zero in `a` (broadcast over its leading dims).
Tensor outside_triangle(const Tensor& a, int64_t diagonal, bool lower) {
  // Fewer than 2 dims: PyTorch's IndexError for dim -2.
  wrap_dim(-2, a.dim(), lower ? "tril" : "triu");
  return band_mask(a.size(-2), a.size(-1), a.device(), diagonal, lower).logical_not();
}

}  // namespace

Tensor tril(const Tensor& a, int64_t diagonal) {
  return masked_fill(a, outside_triangle(a, diagonal, true), 0);
}
Tensor triu(const Tensor& a, int64_t diagonal) {
  return masked_fill(a, outside_triangle(a, diagonal, false), 0);
}
Tensor Tensor::tril(int64_t diagonal) const {
  return ember::tril(*this, diagonal);
}
Tensor Tensor::triu(int64_t diagonal) const {
  return ember::triu(*this, diagonal);
}
Tensor& Tensor::tril_(int64_t diagonal) const {
  return masked_fill_(outside_triangle(*this, diagonal, true), 0);
}
Tensor& Tensor::triu_(int64_t diagonal) const {
  return masked_fill_(outside_triangle(*this, diagonal, false), 0);
}

Tensor diag(const Tensor& a, int64_t diagonal) {
  EMBER_CHECK(a.dim() == 1 || a.dim() == 2, ValueError, "diag: matrix or a vector expected, got a ",
              a.dim(), "-D tensor (sizes ", a.sizes(), ")");
  if (a.dim() == 2) return a.diagonal(diagonal).clone();
  // An n x n matrix, n = len + |diagonal|: above the main diagonal row i holds a[i], below it
  // column j holds a[j]; the band of `diagonal` keeps exactly those.
  const int64_t k = diagonal >= 0 ? diagonal : -diagonal;
  const int64_t n = a.size(0) + k;
  const Tensor padded = k ? cat({a, zeros({k}, a.options())}) : a;
  const Tensor values = (diagonal >= 0 ? padded.unsqueeze(1) : padded.unsqueeze(0)).expand({n, n});
  const Tensor on_band = logical_and(band_mask(n, n, a.device(), diagonal, true),
                                     band_mask(n, n, a.device(), diagonal, false));
  return masked_fill(values, on_band.logical_not(), 0);
}
Tensor Tensor::diag(int64_t diagonal) const {
  return ember::diag(*this, diagonal);
}

Tensor trace(const Tensor& a) {
  EMBER_CHECK(a.dim() == 2, ValueError, "trace: expected a matrix, but got tensor with dim ",
              a.dim());
  return a.diagonal().sum();
}
Tensor Tensor::trace() const {
  return ember::trace(*this);
}

}  // namespace ember
