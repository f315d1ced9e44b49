// torch::linalg's LU-based functions (include/ember/linalg.h). Every matrix is factorised once by
// the `lu_factor` family (LAPACK's getrf on the CPU, kernel_math/lu.h on CUDA) into a column-major
// copy, the layout LAPACK wants; solves run the `lu_solve` family on that factorisation. The
// gradients are the textbook ones, written with ember ops (so they are differentiable again):
//   inv:   dA = -A^-T dY A^-T          solve: dB = A^-T dX,  dA = -dB X^T
//   det:   dA = dDet * det * A^-T      slogdet: dA = dLogAbsDet * A^-T (A^-T from the forward LU)
// A singular A (U has a zero diagonal element) throws LinAlgError in inv and solve after a host
// sync, as PyTorch's check does; det and slogdet return 0 and (0, -inf) without one. float16
// and bfloat16 (PyTorch refuses them) run in float32.
#include <limits>
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

// A batch [B, n, n] factorised: `lu` holds every matrix's LU column-major (lu is LU^T read
// row-major), with getrf's pivots [B, n] and info [B] (int32), on the matrices' device.
struct Factors {
  Tensor lu, pivots, info;
};

Factors factor(const Tensor& A3) {
  Factors f{column_major_copy(A3), make_empty({A3.size(0), A3.size(1)}, kInt, A3.device()),
            zeros({A3.size(0)}, TensorOptions().dtype(kInt).device(A3.device()))};
  backend_for(f.lu).lu_factor(f.lu, f.pivots, f.info);
  return f;
}

// X [B, n, k] with A X = rhs (transpose: A^T X = rhs) for rhs [B, n, k], A factorised in f.
Tensor solve_factored(const Factors& f, const Tensor& rhs, bool transpose) {
  Tensor x = column_major_copy(rhs);
  backend_for(x).lu_solve(x, f.lu, f.pivots, transpose);
  return mT(x);
}

// (-1)^(rows swapped) of every matrix, from its pivots [B, n], in `dtype`.
Tensor permutation_sign(const Tensor& pivots, ScalarType dtype) {
  const int64_t n = pivots.size(-1);
  Tensor swaps = pivots.ne(arange(1, n + 1, pivots.options())).sum({-1});
  return swaps.remainder(2).to(dtype).mul(-2).add(1);
}

// A^-1 with its gradient; `check` throws for a singular A (the gradients of det and slogdet
// call it without, and get inf/NaN there).
Tensor inverse_of(const Tensor& A, bool check, Tensor* info = nullptr,
                  const char* op = "linalg.inv") {
  const int64_t n = A.size(-1);
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t B = count(batch);
  const Tensor A3 = A.detach().reshape({B, n, n});
  Factors f = factor(A3);
  if (check) {
    check_factorised(f.info, A.dim() > 2, op, [](int32_t d) {
      return detail::str_cat("The diagonal element ", d,
                             " is zero, the inversion could not be completed because the input "
                             "matrix is singular.");
    });
  }
  if (info) *info = f.info.reshape(batch);
  Tensor out = solve_factored(f, eye(n, A.options()).expand({B, n, n}), false)
                   .reshape(A.sizes())
                   .contiguous();
  if (autograd::needs_grad({A})) {
    autograd::record("LinalgInvExBackward0", out, {A},
                     [so = autograd::SavedTensor(out, true)](const autograd::variable_list& g) {
                       const Tensor yt = mT(so.unpack());
                       return autograd::variable_list{yt.matmul(g[0]).matmul(yt).neg()};
                     });
  }
  return out;
}

// A^-T for det's and slogdet's gradients: from the forward's factorisation f when the backward
// builds no graph (the common case: no second factorisation), else differentiably.
Tensor inverse_transposed(const Factors& f, const Tensor& A) {
  if (GradMode::is_enabled()) return mT(inverse_of(A, false));
  const int64_t n = A.size(-1), B = f.lu.size(0);
  return solve_factored(f, eye(n, A.options()).expand({B, n, n}), true).reshape(A.sizes());
}

// X with A X = B for A [..., n, n] and B [..., n, k], batch dims broadcast. `check`: throw for a
// singular A (naming `op`); `info`: where the factorisation's info goes.
Tensor solve_matrices(const Tensor& A, const Tensor& B, bool check = true, Tensor* info = nullptr,
                      const char* op = "torch.linalg.solve") {
  const int64_t n = A.size(-1), k = B.size(-1);
  const std::vector<int64_t> batch = broadcast_shapes(batch_of(A), batch_of(B));
  const int64_t count_b = count(batch);
  const Tensor A3 = A.detach().expand(with_matrix(batch, n, n)).reshape({count_b, n, n});
  const Tensor B3 = B.detach().expand(with_matrix(batch, n, k)).reshape({count_b, n, k});
  Factors f = factor(A3);
  if (check) {
    check_factorised(f.info, !batch.empty(), op, [](int32_t) {
      return std::string("The solver failed because the input matrix is singular.");
    });
  }
  if (info) *info = f.info.reshape(batch);
  Tensor X = solve_factored(f, B3, false).reshape(with_matrix(batch, n, k)).contiguous();
  if (autograd::needs_grad({A, B})) {
    autograd::record(
        "LinalgSolveExBackward0", X, {A, B},
        [f, sa = autograd::SavedTensor(A), sx = autograd::SavedTensor(X, true),
         a_sizes = std::vector<int64_t>(A.sizes().begin(), A.sizes().end()),
         b_sizes = std::vector<int64_t>(B.sizes().begin(), B.sizes().end()), batch, count_b, n,
         k](const autograd::variable_list& g) {
          Tensor gB;
          if (GradMode::is_enabled()) {  // create_graph: a gradient that is differentiable too
            gB = solve_matrices(mT(sa.unpack()), g[0]);
          } else {  // A^T's solve from A's factorisation
            gB = solve_factored(f, g[0].expand(with_matrix(batch, n, k)).reshape({count_b, n, k}),
                                true)
                     .reshape(with_matrix(batch, n, k));
          }
          const Tensor gA = gB.matmul(mT(sx.unpack())).neg();
          return autograd::variable_list{autograd::sum_to(gA, a_sizes),
                                         autograd::sum_to(gB, b_sizes)};
        });
  }
  return X;
}

}  // namespace

namespace {

// linalg.solve and solve_ex: X, and the factorisation's info where `info` is given (solve_ex's
// check_errors is `check`).
Tensor solve_checked(const Tensor& A, const Tensor& B, bool left, bool check, Tensor* info,
                     const char* op) {
  check_square(A, "linalg.solve");
  EMBER_CHECK(B.dim() >= 1, ValueError,
              "linalg.solve: The input tensor B must have at least 2 dimensions.");
  EMBER_CHECK(A.scalar_type() == B.scalar_type(), TypeError,
              "linalg.solve: Expected A and B to have the same dtype, but found A of type ",
              A.scalar_type(), " and B of type ", B.scalar_type(), " instead");
  check_same_device(A, B, "linalg.solve");
  if (is_16bit(A)) {
    return solve_checked(A.to(kFloat), B.to(kFloat), left, check, info, op).to(A.scalar_type());
  }
  // PyTorch's rule: B is a batch of vectors when it is one, or has exactly A's batch dims.
  const bool vector =
      B.dim() == 1 ||
      (B.dim() == A.dim() - 1 && B.sizes() == IntArrayRef(A.sizes().data(), size_t(A.dim() - 1)));
  const Tensor Bm = vector ? B.unsqueeze(-1) : B;
  const int64_t n = A.size(-1);
  EMBER_CHECK((left ? Bm.size(-2) : Bm.size(-1)) == n, ValueError,
              "linalg.solve: Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", Bm.size(-2), "x", Bm.size(-1),
              ")");
  // X A = B is A^T X^T = B^T.
  const Tensor X = left ? solve_matrices(A, Bm, check, info, op)
                        : mT(solve_matrices(mT(A), mT(Bm), check, info, op));
  return vector ? X.squeeze(-1) : X;
}

}  // namespace

Tensor solve(const Tensor& A, const Tensor& B, bool left) {
  return solve_checked(A, B, left, true, nullptr, "torch.linalg.solve");
}

std::tuple<Tensor, Tensor> solve_ex(const Tensor& A, const Tensor& B, bool left,
                                    bool check_errors) {
  Tensor info;
  Tensor X = solve_checked(A, B, left, check_errors, &info, "torch.linalg.solve_ex");
  return {X, info};
}

Tensor inv(const Tensor& A) {
  check_square(A, "linalg.inv");
  if (is_16bit(A)) return linalg::inv(A.to(kFloat)).to(A.scalar_type());
  return inverse_of(A, true);
}

std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors) {
  check_square(A, "linalg.inv_ex");
  if (is_16bit(A)) {
    auto [out, info] = linalg::inv_ex(A.to(kFloat), check_errors);
    return {out.to(A.scalar_type()), info};
  }
  Tensor info;
  Tensor out = inverse_of(A, check_errors, &info, "linalg.inv_ex");
  return {out, info};
}

Tensor det(const Tensor& A) {
  check_square(A, "linalg.det");
  if (is_16bit(A)) return linalg::det(A.to(kFloat)).to(A.scalar_type());
  const int64_t n = A.size(-1);
  const std::vector<int64_t> batch = batch_of(A);
  const Factors f = factor(A.detach().reshape({count(batch), n, n}));
  Tensor out = f.lu.diagonal(0, -2, -1).prod(-1).mul(permutation_sign(f.pivots, A.scalar_type()));
  out = out.reshape(batch);
  if (autograd::needs_grad({A})) {
    autograd::record(
        "LinalgDetBackward0", out, {A},
        [f, sa = autograd::SavedTensor(A),
         so = autograd::SavedTensor(out, true)](const autograd::variable_list& g) {
          const Tensor scale = g[0].mul(so.unpack()).unsqueeze(-1).unsqueeze(-1);
          return autograd::variable_list{scale.mul(inverse_transposed(f, sa.unpack()))};
        });
  }
  return out;
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& A) {
  check_square(A, "linalg.slogdet");
  if (is_16bit(A)) {
    auto [sign, logabsdet] = linalg::slogdet(A.to(kFloat));
    return {sign.to(A.scalar_type()), logabsdet.to(A.scalar_type())};
  }
  const int64_t n = A.size(-1);
  const std::vector<int64_t> batch = batch_of(A);
  const Factors f = factor(A.detach().reshape({count(batch), n, n}));
  const Tensor diag = f.lu.diagonal(0, -2, -1);
  Tensor sign =
      diag.sign().prod(-1).mul(permutation_sign(f.pivots, A.scalar_type())).reshape(batch);
  Tensor logabsdet = diag.abs().log().sum({-1}).reshape(batch);
  if (autograd::needs_grad({A})) {
    // The sign is an output of the node too, as in PyTorch (it requires grad), but a real
    // sign is locally constant: its gradient is ignored.
    autograd::record("LinalgSlogdetBackward0", {sign, logabsdet}, {A},
                     [f, sa = autograd::SavedTensor(A)](const autograd::variable_list& g) {
                       const Tensor A = sa.unpack();
                       if (!g[1].defined()) return autograd::variable_list{Tensor()};
                       const Tensor scale = g[1].unsqueeze(-1).unsqueeze(-1);
                       return autograd::variable_list{scale.mul(inverse_transposed(f, A))};
                     });
  }
  return {sign, logabsdet};
}

}  // namespace ember::linalg

namespace ember {

Tensor det(const Tensor& A) {
  return linalg::det(A);
}
Tensor logdet(const Tensor& A) {
  auto [sign, logabsdet] = linalg::slogdet(A);
  return where(sign.lt(0), Scalar(std::numeric_limits<double>::quiet_NaN()), logabsdet);
}
std::tuple<Tensor, Tensor> slogdet(const Tensor& A) {
  return linalg::slogdet(A);
}
Tensor inverse(const Tensor& A) {
  return linalg::inv(A);
}

Tensor Tensor::det() const {
  return ember::det(*this);
}
Tensor Tensor::logdet() const {
  return ember::logdet(*this);
}
std::tuple<Tensor, Tensor> Tensor::slogdet() const {
  return ember::slogdet(*this);
}
Tensor Tensor::inverse() const {
  return ember::inverse(*this);
}

}  // namespace ember
