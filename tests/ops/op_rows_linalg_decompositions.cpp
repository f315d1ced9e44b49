// The rows of the decompositions: linalg.qr (every mode, tall and wide), eigh and eigvalsh (both
// triangles), svd and svdvals, and the top-level qr/svd. Eigen- and singular vectors are unique
// only up to sign, and CUDA's Jacobi kernels choose differently from LAPACK: those rows take
// sign-free functions of the vectors (their squares, U Vh). QR's signs are fixed by Householder's
// convention, which both backends follow, so Q and R are compared as they are.
#include "ember/linalg.h"
#include "ops/op_row_helpers.h"

namespace ember::testing {

using namespace rows;

namespace {

Tensor symmetric(const Tensor& a) {
  return a + a.transpose(-2, -1);
}
#define SYM_T "(a + a.mT)"

}  // namespace

std::vector<OpInfo> linalg_decomposition_rows() {
  return {
      {"linalg_qr_q",
       {F({4, 3})},
       OP(std::get<0>(ember::linalg::qr(a))),
       "torch.linalg.qr(a)[0]",
       true,
       1e-4,
       1e-5},
      {"linalg_qr_r_batched",
       {F({2, 4, 3})},
       OP(std::get<1>(ember::linalg::qr(a))),
       "torch.linalg.qr(a)[1]",
       true,
       1e-4,
       1e-5},
      {"linalg_qr_wide",
       {F({3, 5})},
       OP(std::get<0>(ember::linalg::qr(a)) + std::get<1>(ember::linalg::qr(a)).sum(-1, true)),
       "torch.linalg.qr(a)[0] + torch.linalg.qr(a)[1].sum(-1, keepdim=True)",
       true,
       1e-4,
       1e-5},
      {"linalg_qr_complete",
       {F({3, 4})},
       OP(std::get<0>(ember::linalg::qr(a, "complete"))),
       "torch.linalg.qr(a, mode='complete')[0]",
       true,
       1e-4,
       1e-5},
      {"linalg_qr_r_mode",
       {F({4, 3})},
       OP(std::get<1>(ember::linalg::qr(a, "r"))),
       "torch.linalg.qr(a, mode='r')[1]",
       false,
       1e-4,
       1e-5},
      {"qr", {F({4, 3})}, OP(std::get<1>(ember::qr(a))), "torch.qr(a)[1]", true, 1e-4, 1e-5},
      {"linalg_eigh_values",
       {F({2, 4, 4})},
       OP(std::get<0>(ember::linalg::eigh(symmetric(a)))),
       "torch.linalg.eigh" SYM_T "[0]",
       true,
       1e-4,
       1e-5},
      {"linalg_eigh_vectors_squared",
       {F({4, 4})},
       OP(std::get<1>(ember::linalg::eigh(symmetric(a))).pow(2)),
       "torch.linalg.eigh" SYM_T "[1] ** 2",
       true,
       1e-4,
       1e-5},
      {"linalg_eigh_upper",
       {F({4, 4})},
       OP(std::get<0>(ember::linalg::eigh(symmetric(a), "U"))),
       "torch.linalg.eigh(" SYM_T ", UPLO='U')[0]",
       true,
       1e-4,
       1e-5},
      {"linalg_eigvalsh",
       {F({3, 3, 3})},
       OP(ember::linalg::eigvalsh(symmetric(a))),
       "torch.linalg.eigvalsh" SYM_T,
       true,
       1e-4,
       1e-5},
      {"linalg_svd_values",
       {F({5, 3})},
       OP(std::get<1>(ember::linalg::svd(a, false))),
       "torch.linalg.svd(a, full_matrices=False)[1]",
       true,
       1e-4,
       1e-5},
      {"linalg_svd_u_vh",
       {F({3, 5})},
       OP(std::get<0>(ember::linalg::svd(a, false))
              .matmul(std::get<2>(ember::linalg::svd(a, false)))),
       "torch.linalg.svd(a, full_matrices=False)[0] @ torch.linalg.svd(a, full_matrices=False)[2]",
       true,
       1e-4,
       1e-5},
      {"linalg_svd_u_squared",
       {F({2, 4, 3})},
       OP(std::get<0>(ember::linalg::svd(a, false)).pow(2)),
       "torch.linalg.svd(a, full_matrices=False)[0] ** 2",
       true,
       1e-4,
       1e-5},
      {"linalg_svdvals",
       {F({2, 3, 4})},
       OP(ember::linalg::svdvals(a)),
       "torch.linalg.svdvals(a)",
       true,
       1e-4,
       1e-5},
      {"svd", {F({4, 3})}, OP(std::get<1>(ember::svd(a))), "torch.svd(a)[1]", true, 1e-4, 1e-5},
  };
}

}  // namespace ember::testing
