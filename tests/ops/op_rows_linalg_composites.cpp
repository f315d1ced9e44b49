// The rows of torch.linalg's compositions (src/ops/linalg_composites.cpp): cross, diagonal,
// matmul, matrix_power, multi_dot, vecdot, vander, tensorinv, tensorsolve and cond with each of
// its norms. The inverting ones take well-conditioned matrices, so that float32 results and
// finite differences stay accurate.
#include <cmath>
#include <string_view>

#include "ember/linalg.h"
#include "ops/op_row_helpers.h"

namespace ember::testing {

using namespace rows;

namespace {

// A well-conditioned matrix from a random one: n added to the diagonal of an n x n one keeps its
// eigenvalues away from zero (a random matrix's lie within about sqrt(n) of it).
Tensor well(const Tensor& a) {
  return a + eye(a.size(-1), a.options()) * static_cast<double>(a.size(-1));
}
#define WELL_T "(a + a.shape[-1] * torch.eye(a.shape[-1], dtype=a.dtype))"

constexpr double kInvRtol = 1e-4, kInvAtol = 1e-5;

}  // namespace

std::vector<OpInfo> linalg_composite_rows() {
  return {
      // ---- products ----
      {"linalg_cross",
       {F({2, 3}), F({2, 3})},
       OP(linalg::cross(a, b)),
       "torch.linalg.cross(a, b)",
       true},
      {"linalg_cross_broadcast_dim",  // batch dims broadcast; dim itself must be 3 in both
       {F({3, 2, 1}), F({3, 1, 4})},
       OP(linalg::cross(a, b, 0)),
       "torch.linalg.cross(a, b, dim=0)",
       true},
      {"linalg_matmul",
       {F({2, 3, 4}), F({4, 2})},
       OP(linalg::matmul(a, b)),
       "torch.linalg.matmul(a, b)",
       true,
       kMmRtol,
       kMmAtol},
      {"linalg_matmul_vector",
       {F({4}), F({2, 4, 3})},
       OP(linalg::matmul(a, b)),
       "torch.linalg.matmul(a, b)",
       true,
       kMmRtol,
       kMmAtol},
      {"linalg_vecdot",
       {F({2, 3}), F({3})},
       OP(linalg::vecdot(a, b)),
       "torch.linalg.vecdot(a, b)",
       true},
      {"linalg_vecdot_dim",
       {F({4, 1, 3}), F({4, 2, 1})},
       OP(linalg::vecdot(a, b, 0)),
       "torch.linalg.vecdot(a, b, dim=0)",
       true},
      {"linalg_multi_dot",  // four matrices: the chain order PyTorch's programme picks
       {F({2, 5}), F({5, 3}), F({3, 6}), F({6, 2})},
       OP(linalg::multi_dot({a, b, c, d})),
       "torch.linalg.multi_dot([a, b, c, d])",
       true,
       kMmRtol,
       kMmAtol},
      {"linalg_multi_dot_three",
       {F({4, 2}), F({2, 5}), F({5, 3})},
       OP(linalg::multi_dot({a, b, c})),
       "torch.linalg.multi_dot([a, b, c])",
       true,
       kMmRtol,
       kMmAtol},
      {"linalg_multi_dot_vectors",  // a first and last vector: a scalar
       {F({3}), F({3, 4}), F({4, 2}), F({2})},
       OP(linalg::multi_dot({a, b, c, d})),
       "torch.linalg.multi_dot([a, b, c, d])",
       true,
       kMmRtol,
       kMmAtol},
      {"linalg_multi_dot_two",
       {F({3, 4}), F({4})},
       OP(linalg::multi_dot({a, b})),
       "torch.linalg.multi_dot([a, b])",
       true,
       kMmRtol,
       kMmAtol},

      // ---- parts and powers ----
      {"linalg_diagonal",
       {F({2, 3, 4})},
       OP(linalg::diagonal(a)),
       "torch.linalg.diagonal(a)",
       true},
      {"linalg_diagonal_offset_dims",
       {F({3, 2, 4})},
       OP(linalg::diagonal(a, -1, 0, 2)),
       "torch.linalg.diagonal(a, offset=-1, dim1=0, dim2=2)",
       true},
      {"linalg_matrix_power",
       {F({2, 3, 3}, kUnit)},
       OP(linalg::matrix_power(a, 3)),
       "torch.linalg.matrix_power(a, 3)",
       true,
       kMmRtol,
       kMmAtol},
      {"linalg_matrix_power_negative",
       {F({3, 3})},
       OP(linalg::matrix_power(well(a), -2)),
       "torch.linalg.matrix_power(" WELL_T ", -2)",
       true,
       kInvRtol,
       kInvAtol},
      {"linalg_vander",
       {F({2, 3}, kUnit)},
       OP(linalg::vander(a, 4)),
       "torch.linalg.vander(a, N=4)",
       true},
      {"linalg_vander_square",
       {F({4}, kUnit)},
       OP(linalg::vander(a)),
       "torch.linalg.vander(a)",
       true},
      {"linalg_vander_int",  // integers in int64, as cumprod gives them
       {T({5}, kInt, kSmall)},
       OP(linalg::vander(a)),
       "torch.linalg.vander(a)"},

      // ---- inverses ----
      {"linalg_tensorinv",  // [2, 3, 6] as a 6 x 6 matrix: the inverse [6, 2, 3]
       {F({6, 6})},
       OP(linalg::tensorinv(well(a).reshape({2, 3, 6}))),
       "torch.linalg.tensorinv(" WELL_T ".reshape(2, 3, 6))",
       true,
       kInvRtol,
       kInvAtol},
      {"linalg_tensorinv_ind_1",
       {F({6, 6})},
       OP(linalg::tensorinv(well(a).reshape({6, 2, 3}), 1)),
       "torch.linalg.tensorinv(" WELL_T ".reshape(6, 2, 3), ind=1)",
       true,
       kInvRtol,
       kInvAtol},
      {"linalg_tensorsolve",
       {F({6, 6}), F({2, 3})},
       OP(linalg::tensorsolve(well(a).reshape({2, 3, 2, 3}), b)),
       "torch.linalg.tensorsolve(" WELL_T ".reshape(2, 3, 2, 3), b)",
       true,
       kInvRtol,
       kInvAtol},
      {"linalg_tensorsolve_dims",  // dim 0 moved to the end first
       {F({6, 6}), F({2, 3})},
       OP(linalg::tensorsolve(well(a).reshape({6, 2, 3}), b, {0})),
       "torch.linalg.tensorsolve(" WELL_T ".reshape(6, 2, 3), b, dims=(0,))",
       true,
       kInvRtol,
       kInvAtol},

      // ---- condition numbers ----
      // PyTorch 1.13 cannot differentiate the norms it takes through inv_ex (it masks the
      // inverse in place): those rows check Ember's gradients by finite differences only.
      {"linalg_cond",  // the 2-norm: largest over smallest singular value
       {F({2, 3, 3})},
       OP(linalg::cond(well(a))),
       "torch.linalg.cond" WELL_T,
       true,
       kInvRtol,
       kInvAtol},
      {"linalg_cond_minus_2_wide",
       {F({3, 5})},
       OP(linalg::cond(a, -2)),
       "torch.linalg.cond(a, -2)",
       true,
       kInvRtol,
       kInvAtol},
      no_torch_gradients({"linalg_cond_1",
                          {F({2, 3, 3})},
                          OP(linalg::cond(well(a), 1)),
                          "torch.linalg.cond(" WELL_T ", 1)",
                          true,
                          kInvRtol,
                          kInvAtol}),
      no_torch_gradients({"linalg_cond_minus_1",
                          {F({3, 3})},
                          OP(linalg::cond(well(a), -1)),
                          "torch.linalg.cond(" WELL_T ", -1)",
                          true,
                          kInvRtol,
                          kInvAtol}),
      no_torch_gradients({"linalg_cond_inf",
                          {F({2, 3, 3})},
                          OP(linalg::cond(well(a), INFINITY)),
                          "torch.linalg.cond(" WELL_T ", float('inf'))",
                          true,
                          kInvRtol,
                          kInvAtol}),
      no_torch_gradients({"linalg_cond_minus_inf",
                          {F({3, 3})},
                          OP(linalg::cond(well(a), -INFINITY)),
                          "torch.linalg.cond(" WELL_T ", -float('inf'))",
                          true,
                          kInvRtol,
                          kInvAtol}),
      no_torch_gradients({"linalg_cond_fro",
                          {F({2, 3, 3})},
                          OP(linalg::cond(well(a), std::string_view("fro"))),
                          "torch.linalg.cond(" WELL_T ", 'fro')",
                          true,
                          kInvRtol,
                          kInvAtol}),
      {"linalg_cond_nuc",
       {F({2, 3, 3})},
       OP(linalg::cond(well(a), std::string_view("nuc"))),
       "torch.linalg.cond(" WELL_T ", 'nuc')",
       true,
       kInvRtol,
       kInvAtol},
  };
}

}  // namespace ember::testing
