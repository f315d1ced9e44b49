// The products built from mm, bmm and addmm: mv, dot, vdot, addmv, baddbmm, addbmm and
// matrix_power. Gradients come from the ops they are composed of. Checks and texts as PyTorch's.
#include "autograd/record.h"
#include "core/broadcast.h"
#include "core/tensor_factory.h"
#include "ember/linalg.h"
#include "ember/ops.h"

namespace ember {

namespace {

// float16 and bfloat16 products compute in float32 and round once (a chain of 16-bit roundings
// would drift from PyTorch's float-accumulating kernels).
bool is_16bit(const Tensor& t) {
  return t.dtype() == kHalf || t.dtype() == kBFloat16;
}

// `value`, made to depend on `input` with a zero gradient (where never picks it, so NaNs in
// input stay out): PyTorch's results that ignore an input still give it a zero gradient.
Tensor with_zero_gradient_to(const Tensor& value, const Tensor& input) {
  if (!autograd::needs_grad({input})) return value;
  return where(zeros_like(value, TensorOptions().dtype(kBool)), input, value);
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* op) {
  EMBER_CHECK(a.dtype() == b.dtype(), TypeError, op,
              " : expected both vectors to have same dtype, but found ", to_string(a.dtype()),
              " and ", to_string(b.dtype()));
}

void check_vectors(const Tensor& a, const Tensor& b, const char* op) {
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, ValueError, "1D tensors expected, but got ", a.dim(),
              "D and ", b.dim(), "D tensors");
  check_same_dtype(a, b, op);
  EMBER_CHECK(a.numel() == b.numel(), ValueError, "inconsistent tensor size, expected tensor [",
              a.numel(), "] and src [", b.numel(),
              "] to have the same number of elements, but got ", a.numel(), " and ", b.numel(),
              " elements respectively");
  check_same_device(a, b, op);
}

// beta * self + alpha * product, self broadcast to the product's shape; beta == 0 ignores self
// (NaNs included), as PyTorch's add*mm family does.
Tensor scale_and_add(const Tensor& self, const Tensor& product, const Scalar& beta,
                     const Scalar& alpha, const char* op) {
  EMBER_CHECK(broadcast_shapes(self.sizes(), product.sizes()) == product.sizes().vec(), ValueError,
              op, "(): the input of shape ", self.sizes(), " cannot be broadcast to the product's ",
              product.sizes());
  EMBER_CHECK(self.dtype() == product.dtype(), TypeError, op, "(): expected self and the ",
              "product to have the same dtype, but got ", to_string(self.dtype()), " and ",
              to_string(product.dtype()));
  Tensor scaled = alpha.toDouble() == 1 ? product : product * alpha;
  if (beta.toDouble() == 0) return with_zero_gradient_to(scaled, self);
  return add(scaled, beta.toDouble() == 1 ? self : self * beta);
}

}  // namespace

Tensor mv(const Tensor& mat, const Tensor& vec) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1, ValueError,
              "vector + matrix @ vector expected, got 1, ", mat.dim(), ", ", vec.dim());
  EMBER_CHECK(mat.size(1) == vec.size(0), ValueError, "size mismatch, got ", mat.size(0), ", ",
              mat.size(0), "x", mat.size(1), ",", vec.size(0));
  return mm(mat, vec.unsqueeze(1)).squeeze(1);
}

Tensor dot(const Tensor& a, const Tensor& b) {
  check_vectors(a, b, "dot");
  if (is_16bit(a)) return dot(a.to(kFloat), b.to(kFloat)).to(a.dtype());
  return (a * b).sum(a.scalar_type());
}

// vdot conjugates its first operand; a real tensor is its own conjugate.
Tensor vdot(const Tensor& a, const Tensor& b) {
  check_vectors(a, b, "vdot");
  return dot(a, b);
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1 && self.dim() <= 1, ValueError,
              "vector + matrix @ vector expected, got ", self.dim(), ", ", mat.dim(), ", ",
              vec.dim());
  EMBER_CHECK(mat.size(1) == vec.size(0) && (self.numel() == 1 || self.numel() == mat.size(0)),
              ValueError, "size mismatch, got ", self.dim() == 0 ? 1 : self.size(0), ", ",
              mat.size(0), "x", mat.size(1), ",", vec.size(0));
  if (is_16bit(self) && is_16bit(mat) && is_16bit(vec)) {
    return addmv(self.to(kFloat), mat.to(kFloat), vec.to(kFloat), beta, alpha).to(self.dtype());
  }
  return scale_and_add(self, mv(mat, vec), beta, alpha, "addmv");
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  if (is_16bit(self) && is_16bit(batch1) && is_16bit(batch2)) {
    return baddbmm(self.to(kFloat), batch1.to(kFloat), batch2.to(kFloat), beta, alpha)
        .to(self.dtype());
  }
  return scale_and_add(self, bmm(batch1, batch2), beta, alpha, "baddbmm");
}

Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
              const Scalar& alpha) {
  EMBER_CHECK(batch1.dim() == 3 && batch2.dim() == 3, ValueError,
              "batch1 and batch2 must be 3D tensors, got ", batch1.dim(), "D and ", batch2.dim(),
              "D");
  if (is_16bit(self) && is_16bit(batch1) && is_16bit(batch2)) {
    return addbmm(self.to(kFloat), batch1.to(kFloat), batch2.to(kFloat), beta, alpha)
        .to(self.dtype());
  }
  return scale_and_add(self, bmm(batch1, batch2).sum({0}), beta, alpha, "addbmm");
}

// Square-and-multiply over the last two dims; n = 0 gives identities of a's shape, n < 0 powers of
// the inverse.
Tensor matrix_power(const Tensor& a, int64_t n) {
  EMBER_CHECK(a.dim() >= 2, ValueError,
              "linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(a.size(-1) == a.size(-2), ValueError,
              "linalg.matrix_power: A must be batches of square matrices, but they are ",
              a.size(-2), " by ", a.size(-1), " matrices");
  if (n < 0) return matrix_power(linalg::inv(a), -n);  // inv checks the dtype and singularity
  if (n == 0)
    return with_zero_gradient_to(eye(a.size(-1), a.options()).expand(a.sizes()).clone(), a);
  if (is_16bit(a) && n > 1) return matrix_power(a.to(kFloat), n).to(a.dtype());
  Tensor result, square = a;
  for (int64_t k = n;; k >>= 1) {
    if (k & 1) result = result.defined() ? matmul(result, square) : square;
    if (k <= 1) break;
    square = matmul(square, square);
  }
  return n == 1 ? a.clone() : result;
}

}  // namespace ember
