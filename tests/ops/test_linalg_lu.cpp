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
