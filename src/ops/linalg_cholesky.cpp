// linalg::cholesky and the top-level cholesky (include/ember/linalg.h): the `cholesky` family
// (LAPACK's potrf on the CPU, kernel_math/lu.h's cholesky_column_major on CUDA) on column-major
// copies, from each matrix's lower triangle as PyTorch reads it. The gradient is PyTorch's
// (Murray 2016): dA = sym(L^-T phi(L^T dL) L^-1), phi keeping the lower triangle with its diagonal
// halved, written with ember ops so that it is differentiable again.
#include <vector>

#include "autograd/record.h"
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ops/linalg_helpers.h"

namespace ember::linalg {
namespace {

using namespace linalg_helpers;

// The gradient of A from the lower factor's gradient gL.
Tensor cholesky_backward(const Tensor& L, const Tensor& gL) {
  const int64_t n = L.size(-1);
  const Tensor L_inverse = linalg::inv(L);
  // phi: the lower triangle of L^T gL, its diagonal halved.
  const Tensor halve_diagonal = ones({n, n}, L.options()).tril() - eye(n, L.options()) * 0.5;
  const Tensor phi = mT(L).matmul(gL) * halve_diagonal;
  const Tensor gA = mT(L_inverse).matmul(phi).matmul(L_inverse);
  return (gA + mT(gA)) * 0.5;
}

// L with A = L L^T from A's lower triangle, recorded against A.
Tensor lower_factor(const Tensor& A, bool check = true, Tensor* info_out = nullptr,
                    const char* op = "linalg.cholesky") {
  const int64_t n = A.size(-1);
  const std::vector<int64_t> batch = batch_of(A);
  Tensor factor = column_major_copy(A.detach().reshape({count(batch), n, n}));
  Tensor info = zeros({factor.size(0)}, TensorOptions().dtype(kInt).device(A.device()));
  backend_for(factor).cholesky(factor, info);
  if (check) {
    check_factorised(info, A.dim() > 2, op, [](int32_t order) {
      return detail::str_cat(
          "The factorization could not be completed because the input is not positive-definite "
          "(the leading minor of order ",
          order, " is not positive-definite).");
    });
  }
  if (info_out) *info_out = info.reshape(batch);
  // factor is L^T read row-major: L is its transpose's lower triangle.
  Tensor L = mT(factor).tril().reshape(A.sizes()).contiguous();
  if (autograd::needs_grad({A})) {
    autograd::record("LinalgCholeskyExBackward0", L, {A},
                     [sl = autograd::SavedTensor(L, true)](const autograd::variable_list& g) {
                       return autograd::variable_list{cholesky_backward(sl.unpack(), g[0])};
                     });
  }
  return L;
}

}  // namespace

Tensor cholesky(const Tensor& A, bool upper) {
  check_square(A, "linalg.cholesky");
  if (is_16bit(A)) return linalg::cholesky(A.to(kFloat), upper).to(A.scalar_type());
  // upper reads A's upper triangle (potrf's 'U'): the lower factor of A^T, transposed.
  return upper ? mT(lower_factor(mT(A))) : lower_factor(A);
}

std::tuple<Tensor, Tensor> cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  check_square(A, "linalg.cholesky_ex");
  if (is_16bit(A)) {
    auto [L, info] = linalg::cholesky_ex(A.to(kFloat), upper, check_errors);
    return {L.to(A.scalar_type()), info};
  }
  Tensor info;
  Tensor L =
      upper ? mT(lower_factor(mT(A), check_errors, &info)) : lower_factor(A, check_errors, &info);
  return {L, info};
}

}  // namespace ember::linalg

namespace ember {

Tensor cholesky(const Tensor& A, bool upper) {
  return linalg::cholesky(A, upper);
}

Tensor Tensor::cholesky(bool upper) const {
  return ember::cholesky(*this, upper);
}

}  // namespace ember
