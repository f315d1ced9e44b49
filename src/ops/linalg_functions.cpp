// The matrix functions built on the decompositions and on matmul (include/ember/linalg.h):
// linalg::pinv and the top-level pinverse (through svd, or eigh for hermitian input),
// linalg::matrix_rank (svdvals, eigvalsh), matrix_exp (scaling and squaring with a Taylor
// polynomial) and cholesky_solve (two solves with the factor). Each is composed of ember ops, so
// autograd gives its gradients, twice as well, on every device. Tolerances, checks and messages
// are PyTorch 1.13's; 16-bit input, which PyTorch refuses, runs in float32 and is rounded once.
// pinv alone records a backward of its own: PyTorch's formula, not the decomposition's gradient.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograd/record.h"
#include "core/tensor_factory.h"
#include "ember/autograd.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ops/linalg_helpers.h"

namespace ember::linalg {
namespace {

using namespace linalg_helpers;

// "linalg.pinv(Float{[2, 3]}): ...", PyTorch's check of pinv's input.
void check_pinv(const Tensor& A) {
  std::string sizes;
  for (int64_t s : A.sizes()) sizes += (sizes.empty() ? "" : ", ") + std::to_string(s);
  EMBER_CHECK(A.dim() >= 2 && is_floating_point(A.scalar_type()), TypeError, "linalg.pinv(",
              A.scalar_type(), "{[", sizes, "]}): expected a tensor with 2 or more dimensions of ",
              "float, double, cfloat or cdouble types");
}

// PyTorch's get_atol_rtol: atol defaults to 0, and rtol to eps * max(m, n) unless a positive
// atol is given, when it is 0.
std::pair<double, double> tolerances(const Tensor& A, std::optional<double> atol,
                                     std::optional<double> rtol) {
  const double eps = A.scalar_type() == kDouble ? std::numeric_limits<double>::epsilon()
                                                : std::numeric_limits<float>::epsilon();
  const double default_rtol = eps * double(std::max(A.size(-1), A.size(-2)));
  return {atol.value_or(0.0), rtol ? *rtol : (atol && *atol > 0 ? 0.0 : default_rtol)};
}

// sum_k X^k / k! for k <= degree, by Paterson and Stockmeyer: the powers X^0..X^4, then Horner's
// rule in X^4 over blocks of four terms (7 products for degree 18 instead of 17).
Tensor taylor_exp(const Tensor& X, int degree) {
  constexpr int q = 4;
  std::vector<Tensor> powers = {eye(X.size(-1), X.options()), X};
  for (int i = 2; i <= q; ++i) powers.push_back(powers.back().matmul(X));
  std::vector<double> c(degree + 1, 1.0);
  for (int k = 1; k <= degree; ++k) c[k] = c[k - 1] / k;
  auto block = [&](int j) {
    Tensor b = powers[0] * c[j * q];
    for (int i = 1; i < q && j * q + i <= degree; ++i) b = b + powers[i] * c[j * q + i];
    return b;
  };
  Tensor r = block(degree / q);
  for (int j = degree / q - 1; j >= 0; --j) r = r.matmul(powers[q]) + block(j);
  return r;
}

// PyTorch's gradient of pinv (its pinv_backward: the adjoint of Golub and Pereyra's differential
// of the pseudo-inverse) rather than the one through the SVD or eigh, which differs where singular
// values are cut off and, for hermitian input, in the directions that are not symmetric. Written
// with ember ops, so that it is differentiable again.
Tensor pinv_backward(const Tensor& grad, const Tensor& P, const Tensor& A) {
  const Tensor Pt = mT(P), gt = mT(grad);
  // The products are ordered for the smaller of m and n.
  if (A.size(-2) <= A.size(-1)) {
    const Tensor K = gt.matmul(P), KPt = K.matmul(Pt);
    return mT(P.matmul(K)).neg() + KPt - A.matmul(P).matmul(KPt) +
           Pt.matmul(P).matmul(gt - K.matmul(A));
  }
  const Tensor K = P.matmul(gt), PtK = Pt.matmul(K);
  return mT(K.matmul(P)).neg() + (gt - A.matmul(K)).matmul(P).matmul(Pt) + PtK -
         PtK.matmul(P).matmul(A);
}

}  // namespace

Tensor pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
            bool hermitian) {
  check_pinv(A);
  if (is_16bit(A)) return pinv(A.to(kFloat), atol, rtol, hermitian).to(A.scalar_type());
  if (A.numel() == 0) {
    std::vector<int64_t> sizes(A.sizes().begin(), A.sizes().end());
    std::swap(sizes[sizes.size() - 1], sizes[sizes.size() - 2]);
    return zeros(sizes, A.options());
  }
  const auto [a, r] = tolerances(A, atol, rtol);
  Tensor P;
  {
    NoGradGuard no_grad;  // the gradient is pinv_backward's, recorded below
    const Tensor x = A.detach();
    if (hermitian) {
      // The singular values are |eigenvalues|; the largest is not at either end.
      const auto [S, U] = linalg::eigh(x);
      const Tensor S_abs = ember::abs(S);
      const Tensor tol = (S_abs.amax({-1}, true) * r).clamp_min(a);
      const Tensor S_inverse = where(S_abs.gt(tol), 1.0 / S, 0.0);
      P = (U * S_inverse.unsqueeze(-2)).matmul(mT(U));
    } else {
      const auto [U, S, Vh] = linalg::svd(x, false);
      const Tensor tol = (S.narrow(-1, 0, 1) * r).clamp_min(a);  // S descends
      const Tensor S_inverse = where(S.gt(tol), 1.0 / S, 0.0);
      P = (mT(Vh) * S_inverse.unsqueeze(-2)).matmul(mT(U));
    }
  }
  if (autograd::needs_grad({A})) {
    autograd::record(
        "LinalgPinvBackward0", P, {A},
        [sp = autograd::SavedTensor(P, true),
         sa = autograd::SavedTensor(A)](const autograd::variable_list& g) {
          return autograd::variable_list{pinv_backward(g[0], sp.unpack(), sa.unpack())};
        });
  }
  return P;
}

// libtorch's rcond form: rcond is the relative tolerance, with none absolute.
Tensor pinv(const Tensor& A, double rcond, bool hermitian) {
  return pinv(A, 0.0, rcond, hermitian);
}

Tensor matrix_rank(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
                   bool hermitian) {
  EMBER_CHECK(A.dim() >= 2, ValueError,
              "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.");
  EMBER_CHECK(is_floating_point(A.scalar_type()), TypeError,
              "This function doesn't handle types other than float and double");
  const Tensor x = is_16bit(A) ? A.detach().to(kFloat) : A.detach();
  if (x.numel() == 0) return zeros(batch_of(x), TensorOptions().dtype(kLong).device(x.device()));
  const auto [a, r] = tolerances(x, atol, rtol);
  const Tensor S = hermitian ? ember::abs(linalg::eigvalsh(x)) : linalg::svdvals(x);
  const Tensor largest = hermitian ? S.amax({-1}, true) : S.narrow(-1, 0, 1);
  return S.gt((largest * r).clamp_min(a)).sum({-1}, false, kLong);
}

Tensor matrix_exp(const Tensor& A) {
  EMBER_CHECK(A.dim() >= 2, ValueError,
              "linalg.matrix_exp: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(A.size(-1) == A.size(-2), ValueError,
              "linalg.matrix_exp: A must be batches of square matrices, but they are ", A.size(-2),
              " by ", A.size(-1), " matrices");
  EMBER_CHECK(is_floating_point(A.scalar_type()), TypeError,
              "matrix_exp: Expected a floating point or complex tensor as input. Got ",
              A.scalar_type());
  if (is_16bit(A)) return linalg::matrix_exp(A.to(kFloat)).to(A.scalar_type());
  if (A.numel() == 0) return A.clone();
  // Each matrix is scaled by 2^-s to a 1-norm of at most 1, where the Taylor polynomial of degree
  // 18 (float32: 12) is within the dtype's rounding (1/19! ~ 8e-18), and squared s times back.
  // s is per matrix; the number of squarings, the largest s, is read on the host.
  const int degree = A.scalar_type() == kDouble ? 18 : 12;
  Tensor s;
  {
    NoGradGuard no_grad;
    const Tensor norm1 = ember::abs(A.detach()).sum({-2}, true).amax({-1}, true);
    s = ember::ceil(ember::log2(norm1)).clamp_min(0.0);
  }
  // The meta device has no values: its shapes need no squaring.
  const double most = A.device().is_meta() ? 0.0 : s.amax().item<double>();
  // inf or NaN entries give NaN whatever the scaling: no squarings.
  const int64_t squarings = std::isfinite(most) ? int64_t(most) : 0;
  Tensor r = taylor_exp(A * ember::pow(2.0, s.neg()), degree);
  for (int64_t k = 0; k < squarings; ++k) r = where(s.gt(double(k)), r.matmul(r), r);
  return r;
}

}  // namespace ember::linalg

namespace ember {

Tensor matrix_exp(const Tensor& A) {
  return linalg::matrix_exp(A);
}

Tensor pinverse(const Tensor& A, double rcond) {
  return linalg::pinv(A, rcond, false);
}

Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper) {
  using linalg::linalg_helpers::batch_of;
  using linalg::linalg_helpers::mT;
  using linalg::linalg_helpers::with_matrix;
  EMBER_CHECK(B.dim() >= 2, ValueError, "b should have at least 2 dimensions, but has ", B.dim(),
              " dimensions instead");
  EMBER_CHECK(L.dim() >= 2, ValueError, "u should have at least 2 dimensions, but has ", L.dim(),
              " dimensions instead");
  EMBER_CHECK(B.scalar_type() == L.scalar_type(), TypeError,
              "Expected b and A to have the same dtype, but found b of type ", B.scalar_type(),
              " and A of type ", L.scalar_type(), " instead.");
  const int64_t n = L.size(-1);
  EMBER_CHECK(L.size(-2) == n, ValueError, "A must be batches of square matrices, but they are ",
              L.size(-2), " by ", n, " matrices");
  EMBER_CHECK(B.size(-2) == n, ValueError,
              "Incompatible matrix sizes for cholesky_solve: each A matrix is ", n, " by ", n,
              " but each b matrix is ", B.size(-2), " by ", B.size(-1));
  EMBER_CHECK(is_floating_point(B.scalar_type()), TypeError, "\"cholesky_solve_",
              B.device().is_cuda() ? "cuda" : "cpu", "\" not implemented for '", B.scalar_type(),
              "'");
  if (linalg::linalg_helpers::is_16bit(B)) {
    return cholesky_solve(B.to(kFloat), L.to(kFloat), upper).to(B.scalar_type());
  }
  // Batch dims broadcast as PyTorch's; both then have the same rank, so solve takes B as
  // matrices, never as a batch of vectors.
  const std::vector<int64_t> batch = broadcast_shapes(batch_of(B), batch_of(L));
  const Tensor b = B.expand(with_matrix(batch, n, B.size(-1)));
  const Tensor l = L.expand(with_matrix(batch, n, n));
  // The factor's triangle alone, as LAPACK's potrs reads it. Its gradient reaches all of L, as
  // PyTorch's formula (which differentiates (L L^T)^-1 B in the dense L) gives it.
  Tensor factor = upper ? l.triu() : l.tril();
  if (l.requires_grad()) factor = l + (factor - l).detach();
  // A = F F^T with F lower: X = F^-T (F^-1 B).
  const Tensor F = upper ? mT(factor) : factor;
  return linalg::solve(mT(F), linalg::solve(F, b));
}

}  // namespace ember
