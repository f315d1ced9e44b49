// linalg::svd, svdvals and the top-level svd (include/ember/linalg.h): the `svd` family computes
// the reduced SVD of a column-major copy (LAPACK's gesdd on the CPU, one-sided Jacobi on CUDA);
// full_matrices completes U or Vh with an orthonormal basis of the rest of the space from a
// complete QR. The gradient is PyTorch's (Townsend 2016), written with ember ops so that it is
// differentiable again; as PyTorch, it ignores the columns full_matrices adds.
#include <vector>

#include "autograd/record.h"
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/autograd.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ops/linalg_helpers.h"

namespace ember::linalg {
namespace {

using namespace linalg_helpers;

Tensor skew(const Tensor& X) {
  return X - mT(X);
}

// The gradient from gU [m, k], gS [k], gVh [k, n] (each may be undefined), for the reduced U,
// S, Vh.
Tensor svd_backward(const Tensor& U, const Tensor& S, const Tensor& Vh, const Tensor& gU,
                    const Tensor& gS, const Tensor& gVh) {
  const int64_t m = U.size(-2), n = Vh.size(-1), k = S.size(-1);
  if (!gU.defined() && !gVh.defined()) {
    return U.matmul(diag_embed(gS)).matmul(Vh);
  }
  const Tensor V = mT(Vh);
  const Tensor gV = gVh.defined() ? mT(gVh) : Tensor();
  // E_ij = S_j^2 - S_i^2, with 1 on the diagonal, where the skew parts are 0.
  const Tensor S2 = S * S;
  const Tensor E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye(k, S.options());
  Tensor inner;
  if (gU.defined()) inner = skew(mT(U).matmul(gU)) * S.unsqueeze(-2);
  if (gV.defined()) {
    const Tensor term = S.unsqueeze(-1) * skew(mT(V).matmul(gV));
    inner = inner.defined() ? inner + term : term;
  }
  inner = inner / E;
  if (gS.defined()) inner = inner + diag_embed(gS);
  // The parts of gU and gV outside U's and V's spans.
  if (m > k && gU.defined()) {
    const Tensor gU_scaled = gU / S.unsqueeze(-2);
    const Tensor outside = gU_scaled - U.matmul(mT(U).matmul(gU_scaled));
    return (U.matmul(inner) + outside).matmul(Vh);
  }
  if (n > k && gV.defined()) {
    const Tensor gV_scaled = mT(gV / S.unsqueeze(-2));
    const Tensor outside = gV_scaled - gV_scaled.matmul(V).matmul(Vh);
    return U.matmul(inner.matmul(Vh) + outside);
  }
  return U.matmul(inner).matmul(Vh);
}

struct Reduced {
  Tensor U, S, Vh;
};

// The reduced SVD of A's matrices, unrecorded; U and Vh left undefined without `vectors`.
Reduced reduced_svd(const Tensor& A, const char* op, bool vectors = true) {
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t b = count(batch);
  Tensor a = column_major_copy(A.detach().reshape({b, m, n}));
  Tensor u = vectors ? make_empty({b, k, m}, A.scalar_type(), A.device()) : Tensor();
  Tensor s = make_empty({b, k}, A.scalar_type(), A.device());
  Tensor vh = vectors ? make_empty({b, n, k}, A.scalar_type(), A.device()) : Tensor();
  Tensor info = zeros({b}, TensorOptions().dtype(kInt).device(A.device()));
  backend_for(a).svd(a, u, s, vh, info);
  check_factorised(info, A.dim() > 2, op, [](int32_t code) {
    return detail::str_cat(
        "The algorithm failed to converge because the input matrix is "
        "ill-conditioned or has too many repeated singular values (error code: ",
        code, ").");
  });
  std::vector<int64_t> s_shape = batch;
  s_shape.push_back(k);
  if (!vectors) return {Tensor(), s.reshape(s_shape), Tensor()};
  return {mT(u).reshape(with_matrix(batch, m, k)).contiguous(), s.reshape(s_shape),
          mT(vh).reshape(with_matrix(batch, k, n)).contiguous()};
}

// Q's columns extended to an orthonormal basis of the whole space (Q [..., r, k], k < r).
Tensor complete_basis(const Tensor& Q) {
  const int64_t r = Q.size(-2), k = Q.size(-1);
  const Tensor rest = std::get<0>(linalg::qr(Q, "complete")).narrow(-1, k, r - k);
  return cat({Q, rest}, -1);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices) {
  check_matrices(A, "linalg.svd");
  if (is_16bit(A)) {
    auto [U, S, Vh] = linalg::svd(A.to(kFloat), full_matrices);
    const ScalarType t = A.scalar_type();
    return {U.to(t), S.to(t), Vh.to(t)};
  }
  Reduced r = reduced_svd(A, "linalg.svd");
  if (autograd::needs_grad({A})) {
    autograd::record(
        "LinalgSvdBackward0", {r.U, r.S, r.Vh}, {A},
        [su = autograd::SavedTensor(r.U, true, 0), ss = autograd::SavedTensor(r.S, true, 1),
         svh = autograd::SavedTensor(r.Vh, true, 2)](const autograd::variable_list& g) {
          if (!g[0].defined() && !g[1].defined() && !g[2].defined()) {
            return autograd::variable_list{Tensor()};
          }
          return autograd::variable_list{
              svd_backward(su.unpack(), ss.unpack(), svh.unpack(), g[0], g[1], g[2])};
        });
  }
  const int64_t m = A.size(-2), n = A.size(-1);
  if (!full_matrices || m == n) return {r.U, r.S, r.Vh};
  // The added columns are any orthonormal completion (PyTorch's differ too); the gradient
  // ignores them, so they are computed off the tape and joined with the recorded parts.
  Tensor U = r.U, Vh = r.Vh;
  if (m > n) {
    Tensor rest;
    {
      NoGradGuard no_grad;
      rest = complete_basis(r.U.detach()).narrow(-1, n, m - n);
    }
    U = cat({r.U, rest}, -1);
  } else {
    Tensor rest;
    {
      NoGradGuard no_grad;
      rest = mT(complete_basis(mT(r.Vh.detach()))).narrow(-2, m, n - m);
    }
    Vh = cat({r.Vh, rest}, -2);
  }
  return {U, r.S, Vh};
}

Tensor svdvals(const Tensor& A) {
  check_matrices(A, "linalg.svd");  // PyTorch's message names svd
  if (autograd::needs_grad({A})) return std::get<1>(linalg::svd(A, false));
  if (is_16bit(A)) return linalg::svdvals(A.to(kFloat)).to(A.scalar_type());
  return reduced_svd(A, "linalg.svd", /*vectors=*/false).S;
}

}  // namespace ember::linalg

namespace ember {

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool some, bool compute_uv) {
  EMBER_CHECK(A.dim() >= 2, ValueError,
              "linalg.svd: input should have at least 2 dimensions, but has ", A.dim(),
              " dimensions instead");
  if (!compute_uv) {
    // As PyTorch: U and V zero-filled, square, whatever `some` says.
    const int64_t m = A.size(-2), n = A.size(-1);
    std::vector<int64_t> batch(A.sizes().begin(), A.sizes().end() - 2);
    std::vector<int64_t> u_shape = batch, v_shape = batch;
    u_shape.insert(u_shape.end(), {m, m});
    v_shape.insert(v_shape.end(), {n, n});
    return {zeros(u_shape, A.options()), linalg::svdvals(A), zeros(v_shape, A.options())};
  }
  auto [U, S, Vh] = linalg::svd(A, !some);
  return {U, S, Vh.transpose(-2, -1)};
}

}  // namespace ember
