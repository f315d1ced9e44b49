// linalg.inv, solve, det, slogdet, cholesky and the top-level det/logdet/slogdet/inverse/cholesky
// (src/ops/linalg_lu.cpp, linalg_cholesky.cpp) beyond their op rows: the LU kernel CUDA runs
// checked against LAPACK on the CPU, singular and empty matrices, batches and broadcasting on every
// device, double backward against PyTorch, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ember/autograd.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "kernel_math/lu.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::torch_run;
namespace et = ember::testing;

namespace {

// A well-conditioned batch: random entries plus 3 on the diagonal.
Tensor well_conditioned(std::vector<int64_t> shape, ScalarType dtype, uint64_t seed) {
  const int64_t n = shape.back();
  return et::make_input(shape, dtype, seed) + eye(n, TensorOptions().dtype(dtype)) * 3;
}

}  // namespace

TEST(LinalgLu, KernelMathMatchesLapack) {
  // The per-matrix factorisation CUDA runs (kernel_math/lu.h) against LAPACK (the CPU backend),
  // through the same column-major layout: equal pivots, LU within rounding, and the same info
  // for a matrix with a zero pivot.
  for (int64_t n : {1, 4, 9}) {
    Tensor A = et::make_input({n, n}, kDouble, 11 + n);
    auto r = torch_run("y, p = torch.linalg.lu_factor(a)", {{"a", A}}, {"y", "p"});
    const Tensor piv = r.at("p").to(kLong).contiguous();
    const double* values = A.data_ptr<double>();
    std::vector<double> a(n * n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) a[i + j * n] = values[i * n + j];
    std::vector<int32_t> pivots(n);
    EXPECT_EQ(lu_factor_column_major(a.data(), pivots.data(), n), 0);
    Tensor mine = from_blob(a.data(), {n, n}, kDouble).t();
    expect_close(mine, r.at("y"), 1e-12, 1e-12, "n = " + std::to_string(n));
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(pivots[i], piv.data_ptr<int64_t>()[i]) << i;
    // Solving with the factors gives A^-1 b, and A^T's solve A^-T b.
    for (bool transpose : {false, true}) {
      std::vector<double> b(n, 1.0);
      lu_solve_column_major(a.data(), pivots.data(), b.data(), n, transpose);
      Tensor x = from_blob(b.data(), {n}, kDouble);
      Tensor M = transpose ? A.t() : A;
      expect_close(M.matmul(x), ones({n}, kDouble), 1e-10, 1e-10);
    }
  }
  // Cholesky: the factor LAPACK's potrf gives (through linalg::cholesky on the CPU), and potrf's
  // info for a matrix whose second leading minor is not positive-definite.
  {
    const int64_t n = 5;
    Tensor X = et::make_input({n, n}, kDouble, 21);
    Tensor A = X.matmul(X.t()) + eye(n, kDouble);
    std::vector<double> a(A.data_ptr<double>(), A.data_ptr<double>() + n * n);  // symmetric
    EXPECT_EQ(cholesky_column_major(a.data(), n), 0);
    Tensor mine = from_blob(a.data(), {n, n}, kDouble).t().tril();
    expect_close(mine, linalg::cholesky(A), 1e-12, 1e-12, "cholesky");
    double indefinite[4] = {1, 2, 2, 1};
    EXPECT_EQ(cholesky_column_major(indefinite, 2), 2);
  }
  double singular[4] = {0, 0, 1, 2};  // column-major [[0, 1], [0, 2]]: column 0 is zero
  int32_t pivots[2];
  EXPECT_EQ(lu_factor_column_major(singular, pivots, 2), 1);
}

TEST(LinalgLu, InverseSolveAndDetOnEveryDevice) {
  Tensor A = well_conditioned({4, 5, 5}, kDouble, 1);
  Tensor B = et::make_input({4, 5, 2}, kDouble, 2);
  Tensor v = et::make_input({5}, kDouble, 3);
  auto r = torch_run(
      "inv = torch.linalg.inv(a); x = torch.linalg.solve(a, b); xv = torch.linalg.solve(a, v);"
      "xl = torch.linalg.solve(a, b.mT, left=False); d = torch.linalg.det(a);"
      "s, l = torch.linalg.slogdet(-a); ld = torch.logdet(a)",
      {{"a", A}, {"b", B}, {"v", v}}, {"inv", "x", "xv", "xl", "d", "s", "l", "ld"});
  for (Device dev : et::test_devices()) {
    const Tensor a = A.to(dev), b = B.to(dev);
    const std::string ctx = dev.str();
    expect_close(linalg::inv(a).cpu(), r.at("inv"), 1e-10, 1e-10, ctx);
    expect_close(a.inverse().cpu(), r.at("inv"), 1e-10, 1e-10, ctx);
    expect_close(linalg::solve(a, b).cpu(), r.at("x"), 1e-10, 1e-10, ctx);
    expect_close(linalg::solve(a, v.to(dev)).cpu(), r.at("xv"), 1e-10, 1e-10, ctx);
    expect_close(linalg::solve(a, b.transpose(-2, -1), false).cpu(), r.at("xl"), 1e-10, 1e-10, ctx);
    expect_close(linalg::det(a).cpu(), r.at("d"), 1e-10, 1e-10, ctx);
    expect_close(a.det().cpu(), r.at("d"), 1e-10, 1e-10, ctx);
    auto [s, l] = linalg::slogdet(a.neg());
    expect_close(s.cpu(), r.at("s"), 0, 0, ctx);
    expect_close(l.cpu(), r.at("l"), 1e-10, 1e-10, ctx);
    expect_close(logdet(a).cpu(), r.at("ld"), 1e-10, 1e-10, ctx);
    // float32 as well, within its rounding.
    expect_close(linalg::inv(a.to(kFloat)).cpu(), r.at("inv").to(kFloat), 1e-4, 1e-5, ctx);
  }
}

TEST(LinalgLu, SingularAndEmptyMatrices) {
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    Tensor singular = tensor({1.0, 2.0, 2.0, 4.0}, kDouble).reshape({2, 2}).to(dev);
    EXPECT_EQ(linalg::det(singular).item<double>(), 0.0) << ctx;
    auto [s, l] = linalg::slogdet(singular);
    EXPECT_EQ(s.item<double>(), 0.0) << ctx;
    EXPECT_EQ(l.item<double>(), -std::numeric_limits<double>::infinity()) << ctx;
    EXPECT_TRUE(std::isnan(logdet(eye(3, kDouble).neg().to(dev)).item<double>())) << ctx;
    EXPECT_EQ(error_of<LinAlgError>([&] { linalg::inv(singular); }),
              "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed "
              "because the input matrix is singular.")
        << ctx;
    Tensor batch = stack({eye(2, kDouble), zeros({2, 2}, kDouble)}).to(dev);
    EXPECT_EQ(error_of<LinAlgError>([&] { linalg::inv(batch); }),
              "linalg.inv: (Batch element 1): The diagonal element 1 is zero, the inversion could "
              "not be completed because the input matrix is singular.")
        << ctx;
    EXPECT_EQ(error_of<LinAlgError>([&] {
                linalg::solve(batch, ones({2, 2, 1}, kDouble).to(dev));
              }),
              "torch.linalg.solve: (Batch element 1): The solver failed because the input matrix "
              "is singular.")
        << ctx;
    // 16-bit matrices run in float32 (PyTorch refuses them).
    Tensor half = linalg::inv(eye(2, kHalf).mul(4).to(dev));
    EXPECT_EQ(half.scalar_type(), kHalf) << ctx;
    EXPECT_EQ(half.cpu().to(kFloat)[0][0].item<float>(), 0.25f) << ctx;
    // Empty matrices and empty batches: det of a 0 x 0 matrix is 1, as PyTorch's.
    EXPECT_EQ(linalg::det(zeros({0, 0}, kDouble).to(dev)).item<double>(), 1.0) << ctx;
    EXPECT_EQ(linalg::inv(zeros({3, 0, 0}, kDouble).to(dev)).sizes(), IntArrayRef({3, 0, 0}));
    EXPECT_EQ(linalg::det(zeros({0, 4, 4}, kDouble).to(dev)).sizes(), IntArrayRef({0}));
    EXPECT_EQ(linalg::solve(eye(2, kDouble).to(dev), zeros({2, 0}, kDouble).to(dev)).sizes(),
              IntArrayRef({2, 0}));
  }
}

TEST(LinalgLu, BroadcastingAndManyMatrices) {
  // A [3, 1, 4, 4] against B [2, 4, 3]: batch [3, 2]; and 200 small matrices, the batch the CPU
  // spreads over its threads and CUDA over its threads.
  Tensor A = well_conditioned({3, 1, 4, 4}, kDouble, 4);
  Tensor B = et::make_input({2, 4, 3}, kDouble, 5);
  Tensor many = well_conditioned({200, 6, 6}, kDouble, 6);
  auto r = torch_run("y = torch.linalg.solve(a, b); d = torch.linalg.det(m)",
                     {{"a", A}, {"b", B}, {"m", many}}, {"y", "d"});
  for (Device dev : et::test_devices()) {
    expect_close(linalg::solve(A.to(dev), B.to(dev)).cpu(), r.at("y"), 1e-10, 1e-10, dev.str());
    expect_close(linalg::det(many.to(dev)).cpu(), r.at("d"), 1e-10, 1e-10, dev.str());
    Tensor inv = linalg::inv(many.to(dev));
    expect_close(inv.matmul(many.to(dev)).cpu(), eye(6, kDouble).expand({200, 6, 6}), 1e-10, 1e-10,
                 dev.str());
  }
}

TEST(LinalgLu, GradientsAndDoubleBackwardMatchPyTorch) {
  Tensor A = well_conditioned({2, 3, 3}, kDouble, 7), B = et::make_input({2, 3, 2}, kDouble, 8);
  auto r = torch_run(
      "a.requires_grad_(); b.requires_grad_()\n"
      "y = (torch.linalg.solve(a, b) ** 2).sum() + torch.linalg.det(a).sum()"
      " + torch.linalg.slogdet(a)[1].sum() + torch.linalg.inv(a).pow(3).sum()\n"
      "ga, gb = torch.autograd.grad(y, (a, b), create_graph=True)\n"
      "gga, ggb = torch.autograd.grad((ga ** 2).sum() + (gb ** 2).sum(), (a, b))",
      {{"a", A}, {"b", B}}, {"ga", "gb", "gga", "ggb"});
  for (Device dev : et::test_devices()) {
    Tensor a = A.to(dev).detach().requires_grad_(), b = B.to(dev).detach().requires_grad_();
    Tensor y = linalg::solve(a, b).pow(2).sum() + linalg::det(a).sum() +
               std::get<1>(linalg::slogdet(a)).sum() + linalg::inv(a).pow(3).sum();
    auto g = autograd::grad({y}, {a, b}, {}, std::nullopt, true);
    expect_close(g[0].cpu(), r.at("ga"), 1e-9, 1e-9, dev.str());
    expect_close(g[1].cpu(), r.at("gb"), 1e-9, 1e-9, dev.str());
    auto gg = autograd::grad({g[0].pow(2).sum() + g[1].pow(2).sum()}, {a, b});
    expect_close(gg[0].cpu(), r.at("gga"), 1e-8, 1e-8, dev.str());
    expect_close(gg[1].cpu(), r.at("ggb"), 1e-8, 1e-8, dev.str());
  }
}

TEST(LinalgLu, CholeskyOnEveryDevice) {
  Tensor X = et::make_input({3, 4, 4}, kDouble, 9);
  Tensor A = X.matmul(X.transpose(-2, -1)) + eye(4, kDouble);
  Tensor skewed = A.clone();
  skewed.select(-1, 3).select(-1, 0).fill_(100.0);  // above the diagonal: lower ignores it
  auto r = torch_run(
      "l = torch.linalg.cholesky(a); u = torch.linalg.cholesky(a, upper=True);"
      "ls = torch.linalg.cholesky(s)",
      {{"a", A}, {"s", skewed}}, {"l", "u", "ls"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    expect_close(linalg::cholesky(A.to(dev)).cpu(), r.at("l"), 1e-10, 1e-10, ctx);
    expect_close(A.to(dev).cholesky(true).cpu(), r.at("u"), 1e-10, 1e-10, ctx);
    expect_close(linalg::cholesky(skewed.to(dev)).cpu(), r.at("ls"), 1e-10, 1e-10, ctx);
    Tensor indefinite = stack({eye(2, kDouble), eye(2, kDouble).neg()}).to(dev);
    EXPECT_EQ(error_of<LinAlgError>([&] { linalg::cholesky(indefinite); }),
              "linalg.cholesky: (Batch element 1): The factorization could not be completed "
              "because the input is not positive-definite (the leading minor of order 1 is not "
              "positive-definite).")
        << ctx;
    EXPECT_EQ(linalg::cholesky(zeros({0, 0}, kDouble).to(dev)).sizes(), IntArrayRef({0, 0}));
  }
}

TEST(LinalgLu, BadInputNamesTheProblem) {
  EXPECT_EQ(error_of([] {
              linalg::inv(zeros({2, 3}));
            }),
            "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_EQ(error_of([] { linalg::det(zeros({3})); }),
            "linalg.det: The input tensor A must have at least 2 dimensions.");
  EXPECT_EQ(error_of([] {
              linalg::inv(zeros({2, 2}, kLong));
            }),
            "linalg.inv: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_EQ(error_of([] {
              linalg::slogdet(zeros({2, 2}, kBool));
            }),
            "linalg.slogdet: Expected a floating point or complex tensor as input. Got Bool");
  EXPECT_EQ(error_of([] { linalg::solve(eye(2), ones({3})); }),
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x1)");
  EXPECT_EQ(error_of([] {
              linalg::solve(eye(2), ones({2, 3}), false);
            }),
            "linalg.solve: Incompatible shapes of A and B for the equation XA = B (2x2 and 2x3)");
  EXPECT_EQ(error_of([] { linalg::solve(eye(2, kDouble), ones({2})); }),
            "linalg.solve: Expected A and B to have the same dtype, but found A of type Double "
            "and B of type Float instead");
  EXPECT_EQ(error_of([] { linalg::solve(eye(2), tensor(1.0f)); }),
            "linalg.solve: The input tensor B must have at least 2 dimensions.");
  // The process goes on: a good call after the bad ones.
  EXPECT_EQ(linalg::det(eye(2)).item<float>(), 1.0f);
}

// The public LU functions (src/ops/linalg_lu_public.cpp) and the _ex forms.
TEST(LinalgLuPublic, FactorsSolvesAndExFormsOnEveryDevice) {
  Tensor A = et::make_input({2, 4, 4}, kDouble, 31);  // random: rows get swapped
  Tensor B = et::make_input({2, 4, 3}, kDouble, 32);
  Tensor T = well_conditioned({4, 4}, kDouble, 33);
  Tensor singular = stack({eye(2, kDouble), zeros({2, 2}, kDouble)});
  Tensor tall = et::make_input({6, 3}, kDouble, 34), rhs = et::make_input({6, 2}, kDouble, 35);
  auto r = torch_run(
      "lu, piv = torch.linalg.lu_factor(a); P, L, U = torch.linalg.lu(a)\n"
      "x_ln = torch.linalg.lu_solve(lu, piv, b); x_la = torch.linalg.lu_solve(lu, piv, b, "
      "adjoint=True)\n"
      "x_rn = torch.linalg.lu_solve(lu, piv, b.mT, left=False); x_ra = torch.linalg.lu_solve(lu, "
      "piv, b.mT, left=False, adjoint=True)\n"
      "tu = torch.linalg.solve_triangular(t, b, upper=True); tl = "
      "torch.linalg.solve_triangular(t, b[0].mT, upper=False, left=False, unitriangular=True)\n"
      "h, tau = torch.geqrf(g); hp = torch.linalg.householder_product(h, tau)\n"
      "ie, ii = torch.linalg.inv_ex(s); ce, ci = torch.linalg.cholesky_ex(-s); se, si = "
      "torch.linalg.solve_ex(s, b[:, :2, :])\n"
      "ls = torch.linalg.lstsq(g, c); lsd = torch.linalg.lstsq(g, c, driver='gelsd')\n"
      "ls_x, ls_rank, lsd_res, lsd_sv = ls.solution, ls.rank, lsd.residuals, "
      "lsd.singular_values",
      {{"a", A}, {"b", B}, {"t", T}, {"s", singular}, {"g", tall}, {"c", rhs}},
      {"lu", "piv", "P",  "L",  "U",  "x_ln", "x_la", "x_rn",    "x_ra",    "tu",    "tl",
       "h",  "tau", "hp", "ii", "ci", "si",   "ls_x", "ls_rank", "lsd_res", "lsd_sv"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor a = A.to(dev), b = B.to(dev);
    auto [lu, piv] = linalg::lu_factor(a);
    expect_close(lu.cpu(), r.at("lu"), 1e-12, 1e-12, ctx);
    EXPECT_EQ(piv.scalar_type(), kInt) << ctx;
    expect_close(piv.cpu(), r.at("piv"), 0, 0, ctx);
    auto [P, L, U] = linalg::lu(a);
    expect_close(P.cpu(), r.at("P"), 0, 0, ctx);
    expect_close(L.cpu(), r.at("L"), 1e-12, 1e-12, ctx);
    expect_close(U.cpu(), r.at("U"), 1e-12, 1e-12, ctx);
    expect_close(linalg::lu_solve(lu, piv, b).cpu(), r.at("x_ln"), 1e-10, 1e-10, ctx);
    expect_close(linalg::lu_solve(lu, piv, b, true, true).cpu(), r.at("x_la"), 1e-10, 1e-10, ctx);
    const Tensor bt = b.transpose(-2, -1);
    expect_close(linalg::lu_solve(lu, piv, bt, false).cpu(), r.at("x_rn"), 1e-10, 1e-10, ctx);
    expect_close(linalg::lu_solve(lu, piv, bt, false, true).cpu(), r.at("x_ra"), 1e-10, 1e-10, ctx);
    expect_close(linalg::solve_triangular(T.to(dev), b, true).cpu(), r.at("tu"), 1e-10, 1e-10, ctx);
    expect_close(linalg::solve_triangular(T.to(dev), bt.select(0, 0), false, false, true).cpu(),
                 r.at("tl"), 1e-10, 1e-10, ctx);
    expect_close(linalg::householder_product(r.at("h").to(dev), r.at("tau").to(dev)).cpu(),
                 r.at("hp"), 1e-12, 1e-12, ctx);
    // The _ex forms return info instead of raising.
    auto [inverse, inv_info] = linalg::inv_ex(singular.to(dev));
    expect_close(inv_info.cpu(), r.at("ii"), 0, 0, ctx);
    EXPECT_EQ(std::get<1>(linalg::cholesky_ex(singular.neg().to(dev))).cpu().sum().item<int>(),
              r.at("ci").sum().item<int>())
        << ctx;
    expect_close(std::get<1>(linalg::solve_ex(singular.to(dev), b.narrow(1, 0, 2))).cpu(),
                 r.at("si"), 0, 0, ctx);
    EXPECT_EQ(error_of<LinAlgError>([&] { linalg::inv_ex(singular.to(dev), true); }),
              "linalg.inv_ex: (Batch element 1): The diagonal element 1 is zero, the inversion "
              "could not be completed because the input matrix is singular.")
        << ctx;
    // lstsq: the solution, gelsy's rank, gelsd's residuals and singular values.
    auto [x, residuals, rank, sv] = linalg::lstsq(tall.to(dev), rhs.to(dev));
    expect_close(x.cpu(), r.at("ls_x"), 1e-10, 1e-10, ctx);
    EXPECT_EQ(rank.item<int64_t>(), r.at("ls_rank").item<int64_t>()) << ctx;
    EXPECT_EQ(residuals.numel(), 0) << ctx;
    auto [xd, rd, rankd, svd_] = linalg::lstsq(tall.to(dev), rhs.to(dev), std::nullopt, "gelsd");
    expect_close(rd.cpu(), r.at("lsd_res"), 1e-10, 1e-10, ctx);
    expect_close(svd_.cpu(), r.at("lsd_sv"), 1e-10, 1e-10, ctx);
  }
}

TEST(LinalgLuPublic, GradientsMatchPyTorch) {
  Tensor A = well_conditioned({2, 3, 3}, kDouble, 36), B = et::make_input({2, 3, 2}, kDouble, 37);
  Tensor H = et::make_input({5, 3}, kDouble, 38), tau = et::make_input({2}, kDouble, 39);
  Tensor G = et::make_input({5, 3}, kDouble, 40), C = et::make_input({5, 2}, kDouble, 41);
  auto r = torch_run(
      "a.requires_grad_(); b.requires_grad_(); h.requires_grad_(); tau.requires_grad_(); "
      "g.requires_grad_(); c.requires_grad_()\n"
      "lu, piv = torch.linalg.lu_factor(a); P, L, U = torch.linalg.lu(a)\n"
      "y = (lu ** 2).sum() + (L * U).sum() + U.sin().sum()"
      " + torch.linalg.lu_solve(lu, piv, b).sin().sum()"
      " + torch.linalg.lu_solve(lu, piv, b, adjoint=True).cos().sum()"
      " + torch.linalg.lu_solve(lu, piv, b.mT, left=False).exp().sum()"
      " + torch.linalg.lu_solve(lu, piv, b.mT, left=False, adjoint=True).pow(2).sum()"
      " + torch.linalg.solve_triangular(a, b, upper=True).sin().sum()"
      " + torch.linalg.solve_triangular(a, b.mT, upper=False, left=False, "
      "unitriangular=True).sum()"
      " + torch.linalg.householder_product(h, tau).sin().sum()"
      " + torch.linalg.lstsq(g, c).solution.pow(2).sum()\n"
      "ga, gb, gh, gt, gg, gc = torch.autograd.grad(y, (a, b, h, tau, g, c))",
      {{"a", A}, {"b", B}, {"h", H}, {"tau", tau}, {"g", G}, {"c", C}},
      {"ga", "gb", "gh", "gt", "gg", "gc"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    Tensor a = A.to(dev).requires_grad_(), b = B.to(dev).requires_grad_(),
           h = H.to(dev).requires_grad_(), t = tau.to(dev).requires_grad_(),
           g = G.to(dev).requires_grad_(), c = C.to(dev).requires_grad_();
    auto [lu, piv] = linalg::lu_factor(a);
    auto [P, L, U] = linalg::lu(a);
    const Tensor bt = b.transpose(-2, -1);
    Tensor y = lu.pow(2).sum() + (L * U).sum() + U.sin().sum() +
               linalg::lu_solve(lu, piv, b).sin().sum() +
               linalg::lu_solve(lu, piv, b, true, true).cos().sum() +
               linalg::lu_solve(lu, piv, bt, false).exp().sum() +
               linalg::lu_solve(lu, piv, bt, false, true).pow(2).sum() +
               linalg::solve_triangular(a, b, true).sin().sum() +
               linalg::solve_triangular(a, bt, false, false, true).sum() +
               linalg::householder_product(h, t).sin().sum() +
               std::get<0>(linalg::lstsq(g, c)).pow(2).sum();
    auto grads = autograd::grad({y}, {a, b, h, t, g, c});
    const char* names[] = {"ga", "gb", "gh", "gt", "gg", "gc"};
    for (size_t i = 0; i < grads.size(); ++i) {
      expect_close(grads[i].cpu(), r.at(names[i]), 1e-8, 1e-8, ctx + " " + names[i]);
    }
  }
}

TEST(LinalgLuPublic, BadInputRaisesPyTorchsErrors) {
  Tensor A = eye(3, kDouble);
  EXPECT_EQ(error_of([&] { linalg::lu_factor(A, false); }),
            "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  EXPECT_EQ(error_of([&] {
              linalg::lu_factor(stack({eye(2, kDouble), zeros({2, 2}, kDouble)}));
            }),
            "torch.linalg.lu_factor: (Batch element 1): U[1,1] is zero and using it on lu_solve "
            "would result in a division by zero. If you still want to perform the factorization, "
            "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
  EXPECT_EQ(error_of([&] {
              linalg::lu_solve(A, ones({3}, kLong), ones({3, 1}, kDouble));
            }),
            "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32");
  EXPECT_EQ(
      error_of([&] {
        linalg::lu_solve(A, ones({3}, kInt), ones({4, 2}, kDouble));
      }),
      "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x2)");
  EXPECT_EQ(error_of([&] { linalg::solve_triangular(A, ones({3}, kDouble), true); }),
            "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.");
  EXPECT_EQ(error_of([&] { linalg::lstsq(A, ones({4}, kDouble)); }),
            "torch.linalg.lstsq: input.size(-2) should match other.size(-1)");
  EXPECT_EQ(error_of([&] {
              linalg::lstsq(A, ones({3, 1}, kDouble), std::nullopt, "foo");
            }),
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  EXPECT_EQ(error_of([&] {
              linalg::householder_product(ones({2, 3}), ones({2}));
            }),
            "torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
            "input.shape[-1]");
  // The process goes on.
  EXPECT_EQ(std::get<0>(linalg::lu_factor(A)).sizes(), IntArrayRef({3, 3}));
}
