// The rows of the linalg functions built on the reductions and decompositions
// (src/ops/linalg_norms.cpp, linalg_functions.cpp): vector_norm, matrix_norm and norm over their
// ords and dims, pinv/pinverse, matrix_rank, matrix_exp and cholesky_solve. Inputs keep off the
// points where a gradient is undefined: |x| away from 0 for ords at most 1, distinct singular
// values for the SVD-based ords and pinv, positive-definite matrices for cholesky_solve.
#include <limits>

#include "ember/linalg.h"
#include "ops/op_row_helpers.h"

namespace ember::testing {

using namespace rows;

namespace {

// Well-separated singular values (about 1, 2, 3, ...): a small random part plus the columns of
// the identity scaled by 1, 2, 3. The SVD's gradient needs distinct ones.
Tensor distinct(const Tensor& a) {
  const int64_t m = a.size(-2), n = a.size(-1);
  return a * 0.2 + eye(m, n, a.options()) * (arange(n, a.options()) + 1);
}
#define DISTINCT_T                                                                 \
  "(a * 0.2 + torch.eye(a.shape[-2], a.shape[-1], dtype=a.dtype) * (torch.arange(" \
  "a.shape[-1], dtype=a.dtype) + 1))"
// A symmetric matrix with distinct eigenvalues, for pinv(hermitian=True) (through eigh).
Tensor symmetric(const Tensor& a) {
  const Tensor d = distinct(a);
  return d + d.transpose(-2, -1);
}
#define SYMMETRIC_T "(" DISTINCT_T " + " DISTINCT_T ".mT)"
// A symmetric positive-definite matrix from a random one, for cholesky_solve: a a^T + 3 I.
Tensor spd(const Tensor& a) {
  return a.matmul(a.transpose(-2, -1)) + eye(a.size(-1), a.options()) * 3;
}
#define SPD_T "(a @ a.mT + 3 * torch.eye(a.shape[-1], dtype=a.dtype))"

constexpr double kInf = std::numeric_limits<double>::infinity();
// Through an SVD, eigh or a Taylor polynomial: float32 sums in other orders on other backends.
constexpr double kLaRtol = 1e-4, kLaAtol = 1e-5;

OpInfo linalg_row(const char* name, std::vector<InputSpec> inputs, OpFn fn, const char* torch,
                  bool grad = true) {
  return {name, std::move(inputs), std::move(fn), torch, grad, kLaRtol, kLaAtol};
}

}  // namespace

std::vector<OpInfo> linalg_function_rows() {
  return {
      // ---- vector norms ----
      {"linalg_vector_norm",
       {F({3, 4})},
       OP(linalg::vector_norm(a)),
       "torch.linalg.vector_norm(a)",
       true},
      {"linalg_vector_norm_3_dim",
       {F({3, 4})},
       OP(linalg::vector_norm(a, 3, {1})),
       "torch.linalg.vector_norm(a, 3, dim=1)",
       true},
      {"linalg_vector_norm_half_keepdim",  // |x|^0.5: away from 0
       {F({3, 4}, kAway)},
       OP(linalg::vector_norm(a, 0.5, {0}, true)),
       "torch.linalg.vector_norm(a, 0.5, dim=0, keepdim=True)",
       true},
      {"linalg_vector_norm_1",
       {F({2, 3, 4}, kAway)},
       OP(linalg::vector_norm(a, 1, {0, 2})),
       "torch.linalg.vector_norm(a, 1, dim=(0, 2))",
       true},
      {"linalg_vector_norm_inf",
       {F({3, 4}, kAway)},
       OP(linalg::vector_norm(a, kInf, {-1})),
       "torch.linalg.vector_norm(a, float('inf'), dim=-1)",
       true},
      {"linalg_vector_norm_neg_inf",
       {F({3, 4}, kAway)},
       OP(linalg::vector_norm(a, -kInf)),
       "torch.linalg.vector_norm(a, float('-inf'))",
       true},
      {"linalg_vector_norm_0",  // a count of non-zeros (small integers, zeros among them)
       {F({3, 4}, kSmall)},
       OP(linalg::vector_norm(a, 0, {1})),
       "torch.linalg.vector_norm(a, 0, dim=1)"},
      {"linalg_vector_norm_neg_1_5",
       {F({3, 4}, kAway)},
       OP(linalg::vector_norm(a, -1.5, {1})),
       "torch.linalg.vector_norm(a, -1.5, dim=1)",
       true},
      {"linalg_vector_norm_dtype",
       {F({3, 4})},
       OP(linalg::vector_norm(a, 2.5, {}, false, kDouble)),
       "torch.linalg.vector_norm(a, 2.5, dtype=torch.float64)",
       true},
      // ---- matrix norms ----
      linalg_row("linalg_matrix_norm", {F({2, 3, 4})}, OP(linalg::matrix_norm(a)),
                 "torch.linalg.matrix_norm(a)"),
      linalg_row("linalg_matrix_norm_nuc", {F({2, 3, 4})},
                 OP(linalg::matrix_norm(distinct(a), std::string_view("nuc"))),
                 "torch.linalg.matrix_norm(" DISTINCT_T ", 'nuc')"),
      linalg_row("linalg_matrix_norm_2", {F({2, 4, 3})}, OP(linalg::matrix_norm(distinct(a), 2)),
                 "torch.linalg.matrix_norm(" DISTINCT_T ", 2)"),
      linalg_row("linalg_matrix_norm_neg_2_keepdim", {F({3, 3})},
                 OP(linalg::matrix_norm(distinct(a), -2, {-2, -1}, true)),
                 "torch.linalg.matrix_norm(" DISTINCT_T ", -2, keepdim=True)"),
      linalg_row("linalg_matrix_norm_1", {F({2, 3, 4}, kAway)},
                 OP(linalg::matrix_norm(a, 1, {0, 2})),
                 "torch.linalg.matrix_norm(a, 1, dim=(0, 2))"),
      linalg_row("linalg_matrix_norm_neg_1", {F({3, 4}, kAway)}, OP(linalg::matrix_norm(a, -1)),
                 "torch.linalg.matrix_norm(a, -1)"),
      linalg_row("linalg_matrix_norm_inf_keepdim", {F({2, 3, 4}, kAway)},
                 OP(linalg::matrix_norm(a, kInf, {-1, -2}, true)),
                 "torch.linalg.matrix_norm(a, float('inf'), dim=(-1, -2), keepdim=True)"),
      linalg_row("linalg_matrix_norm_neg_inf", {F({3, 4}, kAway)},
                 OP(linalg::matrix_norm(a, -kInf)), "torch.linalg.matrix_norm(a, float('-inf'))"),
      // ---- norm: a vector or a matrix norm by its arguments ----
      linalg_row("linalg_norm", {F({2, 3, 4})}, OP(linalg::norm(a)), "torch.linalg.norm(a)"),
      linalg_row("linalg_norm_dim", {F({2, 3, 4})}, OP(linalg::norm(a, Scalar(3), {1})),
                 "torch.linalg.norm(a, 3, dim=1)"),
      linalg_row("linalg_norm_matrix", {F({3, 4})}, OP(linalg::norm(distinct(a), Scalar(2))),
                 "torch.linalg.norm(" DISTINCT_T ", 2)"),
      linalg_row("linalg_norm_fro_dims", {F({2, 3, 4})},
                 OP(linalg::norm(a, std::string_view("fro"), {0, 2}, true)),
                 "torch.linalg.norm(a, 'fro', dim=(0, 2), keepdim=True)"),
      // ---- pseudo-inverse, rank ----
      linalg_row("linalg_pinv", {F({2, 4, 3})},
                 OP(linalg::pinv(distinct(a), std::nullopt, std::nullopt)),
                 "torch.linalg.pinv(" DISTINCT_T ")"),
      linalg_row("linalg_pinv_rcond", {F({3, 4})}, OP(linalg::pinv(distinct(a), 1e-15)),
                 "torch.linalg.pinv(" DISTINCT_T ", 1e-15)"),
      linalg_row("linalg_pinv_hermitian", {F({2, 3, 3})},
                 OP(linalg::pinv(symmetric(a), std::nullopt, std::nullopt, true)),
                 "torch.linalg.pinv(" SYMMETRIC_T ", hermitian=True)"),
      linalg_row("pinverse", {F({4, 3})}, OP(ember::pinverse(distinct(a))),
                 "torch.pinverse(" DISTINCT_T ")"),
      linalg_row("linalg_matrix_rank", {F({2, 3, 4})}, OP(linalg::matrix_rank(a)),
                 "torch.linalg.matrix_rank(a)", false),
      linalg_row("linalg_matrix_rank_hermitian", {F({3, 3})},
                 OP(linalg::matrix_rank(symmetric(a), 2.0, std::nullopt, true)),
                 "torch.linalg.matrix_rank(" SYMMETRIC_T ", atol=2.0, hermitian=True)", false),
      // ---- matrix exponential ----
      also(
          linalg_row("matrix_exp", {F({2, 3, 3})}, OP(ember::matrix_exp(a)), "torch.matrix_exp(a)"),
          "linalg", OP(linalg::matrix_exp(a))),
      linalg_row("matrix_exp_scaled", {F({3, 3})}, OP(ember::matrix_exp(a * 3)),
                 "torch.matrix_exp(a * 3)"),
      // ---- cholesky_solve: b, then the factor of an SPD matrix ----
      linalg_row("cholesky_solve", {F({2, 3, 3}), F({2, 3, 2})},
                 OP(ember::cholesky_solve(b, linalg::cholesky(spd(a)))),
                 "torch.cholesky_solve(b, torch.linalg.cholesky" SPD_T ")"),
      linalg_row("cholesky_solve_upper_broadcast", {F({3, 3}), F({2, 3, 2})},
                 OP(ember::cholesky_solve(b, linalg::cholesky(spd(a), true), true)),
                 "torch.cholesky_solve(b, torch.linalg.cholesky(" SPD_T ", upper=True), True)"),
  };
}

}  // namespace ember::testing
