// The LU factorisation as public functions (include/ember/linalg.h): lu_factor(_ex), lu, lu_solve,
// and what is built on them or on the QR families: solve_triangular, householder_product and
// lstsq. lu_factor and lu_solve run the same `lu_factor`/`lu_solve` families as inv and solve
// (src/ops/linalg_lu.cpp). Gradients are PyTorch's, written with ember ops:
//   lu_factor: gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T
//   lu_solve:  gB = lu_solve(LU, pivots, gX, left, !adjoint); gA as for solve, mapped onto L and U
// The permutation P is built on the host from the pivots (a sync on CUDA, only where P is needed:
// lu's output and the two gradients).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "autograd/record.h"
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "ops/linalg_helpers.h"

namespace ember::linalg {
namespace {

using namespace linalg_helpers;

// P [..., n, n] with A = P L U, from getrf's 1-based row interchanges pivots [..., n].
Tensor permutation_from_pivots(const Tensor& pivots, const Tensor& like) {
  const int64_t n = pivots.size(-1);
  std::vector<int64_t> shape(pivots.sizes().begin(), pivots.sizes().end());
  shape.push_back(n);
  if (pivots.device().is_meta()) return make_empty(shape, like.scalar_type(), like.device());
  const Tensor host = pivots.to(Device(kCPU)).to(kLong).contiguous().reshape({-1, n});
  const int64_t batch = host.size(0);
  const int64_t* piv = host.data_ptr<int64_t>();
  std::vector<double> p(static_cast<size_t>(batch * n * n), 0.0);
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < n; ++i) perm[i] = i;
    // The interchanges applied in order give P^T A's rows: row i of P^T A is row perm[i] of A.
    for (int64_t j = 0; j < n; ++j) std::swap(perm[j], perm[piv[b * n + j] - 1]);
    for (int64_t i = 0; i < n; ++i) p[b * n * n + perm[i] * n + i] = 1.0;
  }
  return ember::tensor(p, kDouble).reshape(shape).to(like.scalar_type()).to(like.device());
}

Tensor unit_lower(const Tensor& LU) {
  return LU.tril(-1) + eye(LU.size(-1), LU.options());
}

// The gradient of A = P L U from the gradients of L (strictly lower) and U (upper), packed in gLU.
Tensor lu_factor_backward(const Tensor& LU, const Tensor& P, const Tensor& gLU) {
  const Tensor L = unit_lower(LU), U = LU.triu();
  const Tensor phi = mT(L).matmul(gLU.tril(-1)).tril(-1) + gLU.triu().matmul(mT(U)).triu();
  // L^-T phi U^-T by two triangular solves.
  const Tensor left = solve_triangular(mT(L), phi, /*upper=*/true, /*left=*/true, true);
  return P.matmul(solve_triangular(mT(U), left, /*upper=*/false, /*left=*/false));
}

// gA for the A that lu_solve inverted, from gX, X and gB (PyTorch's four cases).
Tensor lu_solve_grad_a(const Tensor& X, const Tensor& gX, const Tensor& gB, bool left,
                       bool adjoint) {
  if (left) return adjoint ? -X.matmul(mT(gB)) : -gB.matmul(mT(X));
  return adjoint ? -mT(gB).matmul(X) : -mT(X).matmul(gB);
}

void check_pivot(bool pivot, const char* op) {
  EMBER_CHECK(pivot, ValueError, op, ": LU without pivoting is not implemented on the CPU");
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  check_square(A, "torch.linalg.lu_factor_ex");
  check_pivot(pivot, "linalg.lu_factor");
  if (is_16bit(A)) {
    auto [LU, pivots, info] = linalg::lu_factor_ex(A.to(kFloat), pivot, check_errors);
    return {LU.to(A.scalar_type()), pivots, info};
  }
  const int64_t n = A.size(-1);
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t b = count(batch);
  Tensor lu = column_major_copy(A.detach().reshape({b, n, n}));
  Tensor pivots = make_empty({b, n}, kInt, A.device());
  Tensor info = zeros({b}, TensorOptions().dtype(kInt).device(A.device()));
  backend_for(lu).lu_factor(lu, pivots, info);
  if (check_errors) {
    check_factorised(info, A.dim() > 2, "torch.linalg.lu_factor_ex", [](int32_t d) {
      return detail::str_cat(
          "U[", d, ",", d,
          "] is zero and using it on lu_solve would result in "
          "a division by zero. If you still want to perform the factorization, "
          "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
    });
  }
  std::vector<int64_t> pivot_shape = batch;
  pivot_shape.push_back(n);
  Tensor LU = mT(lu).reshape(A.sizes()).contiguous();
  pivots = pivots.reshape(pivot_shape);
  info = info.reshape(batch);
  if (autograd::needs_grad({A})) {
    autograd::record(
        "LinalgLuFactorExBackward0", LU, {A},
        [sl = autograd::SavedTensor(LU, true), pivots](const autograd::variable_list& g) {
          const Tensor LU = sl.unpack();
          const Tensor P = permutation_from_pivots(pivots, LU);
          return autograd::variable_list{lu_factor_backward(LU, P, g[0])};
        });
  }
  return {LU, pivots, info};
}

std::tuple<Tensor, Tensor> lu_factor(const Tensor& A, bool pivot) {
  check_square(A, "torch.linalg.lu_factor");
  auto [LU, pivots, info] = lu_factor_ex(A, pivot, false);
  check_factorised(info, A.dim() > 2, "torch.linalg.lu_factor", [](int32_t d) {
    return detail::str_cat("U[", d, ",", d,
                           "] is zero and using it on lu_solve would result in a "
                           "division by zero. If you still want to perform the factorization, "
                           "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
  });
  return {LU, pivots};
}

std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& A, bool pivot) {
  check_square(A, "linalg.lu");
  check_pivot(pivot, "linalg.lu");
  auto [LU, pivots, info] = lu_factor_ex(A, pivot, false);
  // L and U unpacked from LU keep the path to A through lu_factor's node.
  Tensor P = permutation_from_pivots(pivots, LU);
  return {P, unit_lower(LU), LU.triu()};
}

Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  check_square(LU, "linalg.lu_solve");
  EMBER_CHECK(B.dim() >= 2, ValueError,
              "linalg.lu_solve: The input tensor B must have at least 2 dimensions.");
  EMBER_CHECK(LU.scalar_type() == B.scalar_type(), TypeError,
              "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type ",
              LU.scalar_type(), " and B of type ", B.scalar_type(), " instead");
  EMBER_CHECK(pivots.scalar_type() == kInt, TypeError,
              "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32");
  const int64_t n = LU.size(-1);
  EMBER_CHECK(pivots.dim() >= 1 && pivots.size(-1) == n, ValueError,
              "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the "
              "matrix");
  EMBER_CHECK((left ? B.size(-2) : B.size(-1)) == n, ValueError,
              "linalg.lu_solve: Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", B.size(-2), "x", B.size(-1),
              ")");
  if (is_16bit(LU)) {
    return linalg::lu_solve(LU.to(kFloat), pivots, B.to(kFloat), left, adjoint)
        .to(LU.scalar_type());
  }
  // Every case is A X = rhs or A^T X = rhs on columns: X A = B is A^T X^T = B^T.
  const Tensor rhs = left ? B : mT(B);
  const bool transpose = left ? adjoint : !adjoint;
  const int64_t k = rhs.size(-1);
  const std::vector<int64_t> batch = broadcast_shapes(batch_of(LU), batch_of(rhs));
  const int64_t b = count(batch);
  std::vector<int64_t> pivot_shape = batch;
  pivot_shape.push_back(n);
  const Tensor lu =
      column_major_copy(LU.detach().expand(with_matrix(batch, n, n)).reshape({b, n, n}));
  const Tensor piv = pivots.expand(pivot_shape).reshape({b, n}).contiguous();
  Tensor x = column_major_copy(rhs.detach().expand(with_matrix(batch, n, k)).reshape({b, n, k}));
  backend_for(x).lu_solve(x, lu, piv, transpose);
  Tensor X = mT(x).reshape(with_matrix(batch, n, k));
  if (!left) X = mT(X);
  X = X.contiguous();
  if (autograd::needs_grad({LU, B})) {
    autograd::record(
        "LinalgLuSolveBackward0", X, {LU, B},
        [left, adjoint, pivots, sl = autograd::SavedTensor(LU), sx = autograd::SavedTensor(X, true),
         lu_sizes = std::vector<int64_t>(LU.sizes().begin(), LU.sizes().end()),
         b_sizes = std::vector<int64_t>(B.sizes().begin(), B.sizes().end())](
            const autograd::variable_list& g) {
          const Tensor LU = sl.unpack(), X = sx.unpack();
          const Tensor gB = linalg::lu_solve(LU, pivots, g[0], left, !adjoint);
          // A's gradient mapped onto the packed factors: A = P L U.
          const Tensor gA = lu_solve_grad_a(X, g[0], gB, left, adjoint);
          const Tensor P = permutation_from_pivots(pivots, LU);
          const Tensor PtgA = mT(P).matmul(gA);
          const Tensor gLU =
              PtgA.matmul(mT(LU.triu())).tril(-1) + mT(unit_lower(LU)).matmul(PtgA).triu();
          return autograd::variable_list{autograd::sum_to(gLU, lu_sizes),
                                         autograd::sum_to(gB, b_sizes)};
        });
  }
  return X;
}

Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left,
                        bool unitriangular) {
  check_square(A, "linalg.solve_triangular");
  EMBER_CHECK(B.dim() >= 2, ValueError,
              "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.");
  EMBER_CHECK(A.scalar_type() == B.scalar_type(), TypeError,
              "linalg.solve_triangular: Expected A and B to have the same dtype, but found A of "
              "type ",
              A.scalar_type(), " and B of type ", B.scalar_type(), " instead");
  const int64_t n = A.size(-1);
  EMBER_CHECK((left ? B.size(-2) : B.size(-1)) == n, ValueError,
              "linalg.solve_triangular: Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", B.size(-2), "x", B.size(-1),
              ")");
  // Only the named triangle is read (its diagonal taken as ones when unitriangular): autograd
  // through tril/triu gives PyTorch's gradient, zero in the other triangle. The solve itself is
  // an LU solve, exact on a triangular matrix; batch dims are broadcast first so that linalg.solve
  // never reads B as a batch of vectors.
  const int64_t offset = unitriangular ? 1 : 0;
  Tensor T = upper ? A.triu(offset) : A.tril(-offset);
  if (unitriangular) T = T + eye(n, A.options());
  const std::vector<int64_t> batch = broadcast_shapes(batch_of(T), batch_of(B));
  const Tensor Tb = T.expand(with_matrix(batch, n, n));
  const Tensor Bb = B.expand(with_matrix(batch, B.size(-2), B.size(-1)));
  return linalg::solve(Tb, Bb, left);
}

Tensor householder_product(const Tensor& A, const Tensor& tau) {
  check_matrices(A, "torch.linalg.householder_product");
  const int64_t m = A.size(-2), n = A.size(-1);
  EMBER_CHECK(m >= n, ValueError,
              "torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
              "input.shape[-1]");
  EMBER_CHECK(tau.dim() == A.dim() - 1, ValueError,
              "torch.linalg.householder_product: Expected tau to have one dimension less than "
              "input, but got tau.ndim equal to ",
              tau.dim(), " and input.ndim is equal to ", A.dim());
  const int64_t k = tau.size(-1);
  EMBER_CHECK(n >= k, ValueError,
              "torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
              "tau.shape[-1]");
  EMBER_CHECK(A.scalar_type() == tau.scalar_type(), TypeError,
              "torch.linalg.householder_product: tau dtype ", tau.scalar_type(),
              " does not match input dtype ", A.scalar_type());
  if (autograd::needs_grad({A, tau})) {
    // Differentiable: the reflectors applied one by one to the identity's first n columns,
    // last first, as org2r does.
    Tensor Q = eye(m, A.options()).narrow(-1, 0, n).expand(A.sizes()).contiguous();
    const Tensor below = A.tril(-1) + eye(m, A.options()).narrow(-1, 0, n);
    for (int64_t j = k - 1; j >= 0; --j) {
      const Tensor v = below.narrow(-1, j, 1);
      const Tensor t = tau.narrow(-1, j, 1).unsqueeze(-1);
      Q = Q - v.matmul(mT(v).matmul(Q)) * t;
    }
    return Q;
  }
  if (is_16bit(A)) {
    return linalg::householder_product(A.to(kFloat), tau.to(kFloat)).to(A.scalar_type());
  }
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t b = count(batch);
  Tensor q = column_major_copy(A.detach().reshape({b, m, n}));
  const Tensor t = tau.detach().reshape({b, k}).contiguous();
  backend_for(q).householder_product(q, t);
  return mT(q).reshape(A.sizes()).contiguous();
}

std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& A, const Tensor& B,
                                                 std::optional<double> rcond,
                                                 std::optional<std::string_view> driver) {
  check_matrices(A, "torch.linalg.lstsq");
  const std::string name = driver ? std::string(*driver) : std::string("gelsy");
  EMBER_CHECK(
      name == "gelsy" || name == "gels" || name == "gelsd" || name == "gelss", ValueError,
      "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  EMBER_CHECK(B.dim() >= 1 && A.dim() >= B.dim() && A.dim() - B.dim() <= 1, ValueError,
              "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
              "(input.dim() - other.dim()) <= 1");
  const bool vector = B.dim() == A.dim() - 1;
  const Tensor Bm = vector ? B.unsqueeze(-1) : B;
  const int64_t m = A.size(-2), n = A.size(-1);
  EMBER_CHECK(Bm.size(-2) == m, ValueError,
              vector ? "torch.linalg.lstsq: input.size(-2) should match other.size(-1)"
                     : "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
  EMBER_CHECK(A.scalar_type() == B.scalar_type(), TypeError,
              "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
              "input's dtype ",
              A.scalar_type(), " and other's dtype ", B.scalar_type());
  // The minimum-norm least-squares solution, pinv(A) B, which every driver returns for a
  // full-rank A; its gradient is pinv's.
  const double eps = A.scalar_type() == kDouble ? 2.220446049250313e-16 : 1.1920928955078125e-07;
  const double rtol = rcond && *rcond > 0 ? *rcond : eps * static_cast<double>(std::max(m, n));
  Tensor X = linalg::pinv(A, std::optional<double>(0.0), std::optional<double>(rtol)).matmul(Bm);
  if (vector) X = X.squeeze(-1);
  Tensor residuals = make_empty({0}, A.scalar_type(), A.device());
  Tensor rank = make_empty({0}, kLong, A.device());
  Tensor singular_values = make_empty({0}, A.scalar_type(), A.device());
  if (name != "gels") {
    const Tensor S = linalg::svdvals(A.detach());
    if (name != "gelsy") singular_values = S;
    rank = S.gt(S.narrow(-1, 0, std::min<int64_t>(1, S.size(-1))) * rtol).sum({-1}).to(kLong);
  }
  // PyTorch returns the squared residuals only for tall, full-rank A and drivers other than
  // gelsy.
  if (m > n && name != "gelsy") {
    const Tensor full_rank = linalg::matrix_rank(A.detach()).eq(n).all();
    if (full_rank.item<bool>()) {
      const Tensor r = A.matmul(vector ? X.unsqueeze(-1) : X) - Bm;
      residuals = r.pow(2).sum({-2});  // [..., k], also for vectors (k = 1), as PyTorch
    }
  }
  return {X, residuals, rank, singular_values};
}

}  // namespace ember::linalg
