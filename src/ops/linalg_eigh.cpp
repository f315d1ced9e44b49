// linalg::eigh and eigvalsh (include/ember/linalg.h): the `eigh` family on a column-major copy
// (LAPACK's syevd on the CPU, Jacobi rotations on CUDA), from the triangle UPLO names. The
// gradient is PyTorch's: gA = V (skew(V^T gV) / 2 / E + diag(gL)) V^T with E_ij = L_j - L_i,
// written with ember ops so that it is differentiable again.
#include <string>
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

Tensor eigh_backward(const Tensor& L, const Tensor& V, const Tensor& gL, const Tensor& gV) {
  Tensor inner;
  if (gV.defined()) {
    // Only gV's part tangent to the orthogonal matrices counts: its skew-symmetric half.
    const Tensor VtgV = mT(V).matmul(gV);
    const Tensor skew = (VtgV - mT(VtgV)) * 0.5;
    const int64_t n = L.size(-1);
    // E_ij = L_j - L_i, with 1 on the diagonal, where skew is 0.
    const Tensor E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye(n, L.options());
    inner = skew / E;
  }
  if (gL.defined()) {
    const Tensor diagonal = diag_embed(gL);
    inner = inner.defined() ? inner + diagonal : diagonal;
  }
  return V.matmul(inner).matmul(mT(V));
}

bool lower_from(std::string_view UPLO) {
  EMBER_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u", ValueError,
              "Expected UPLO argument to be 'L' or 'U', but got ", std::string(UPLO));
  return UPLO == "L" || UPLO == "l";
}

}  // namespace

std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view UPLO) {
  check_square(A, "linalg.eigh");
  const bool lower = lower_from(UPLO);
  if (is_16bit(A)) {
    auto [L, V] = linalg::eigh(A.to(kFloat), UPLO);
    return {L.to(A.scalar_type()), V.to(A.scalar_type())};
  }
  const int64_t n = A.size(-1);
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t b = count(batch);
  // The family reads the lower triangle of a column-major matrix: A^T row-major. The upper
  // triangle of A is the lower one of A^T, so UPLO "U" passes A as it lies.
  const Tensor flat = A.detach().reshape({b, n, n});
  Tensor vectors = lower ? column_major_copy(flat) : flat.contiguous().clone();
  Tensor values = make_empty({b, n}, A.scalar_type(), A.device());
  Tensor info = zeros({b}, TensorOptions().dtype(kInt).device(A.device()));
  backend_for(vectors).eigh(vectors, values, info);
  check_factorised(info, A.dim() > 2, "linalg.eigh", [](int32_t order) {
    return detail::str_cat(
        "The algorithm failed to converge because the input matrix is "
        "ill-conditioned or has too many repeated eigenvalues (error code: ",
        order, ").");
  });
  std::vector<int64_t> value_shape = batch;
  value_shape.push_back(n);
  Tensor L = values.reshape(value_shape);
  Tensor V = mT(vectors).reshape(A.sizes()).contiguous();
  if (autograd::needs_grad({A})) {
    autograd::record(
        "LinalgEighBackward0", {L, V}, {A},
        [sl = autograd::SavedTensor(L, true, 0),
         sv = autograd::SavedTensor(V, true, 1)](const autograd::variable_list& g) {
          if (!g[0].defined() && !g[1].defined()) {
            return autograd::variable_list{Tensor()};
          }
          return autograd::variable_list{eigh_backward(sl.unpack(), sv.unpack(), g[0], g[1])};
        });
  }
  return {L, V};
}

Tensor eigvalsh(const Tensor& A, std::string_view UPLO) {
  check_square(A, "linalg.eigh");  // PyTorch's message names eigh
  lower_from(UPLO);
  return std::get<0>(linalg::eigh(A, UPLO));
}

}  // namespace ember::linalg
