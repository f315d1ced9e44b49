// linalg.qr, eigh, eigvalsh, svd, svdvals and the top-level qr/svd (src/ops/linalg_qr.cpp,
// linalg_eigh.cpp, linalg_svd.cpp) beyond their op rows: the per-matrix kernels CUDA runs
// (kernel_math/householder.h, jacobi.h) against LAPACK on the CPU, every mode and shape against
// PyTorch on every device, gradients and double backward against PyTorch, and the errors.
// Eigen- and singular vectors are unique up to sign only: they are compared after each column is
// turned so that its largest-magnitude entry is positive, and gradients go through sign-free
// functions of them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/autograd.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "kernel_math/householder.h"
#include "kernel_math/jacobi.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::torch_run;
namespace et = ember::testing;

namespace {

// Each column of V [..., r, c] multiplied by the sign of its largest-magnitude entry.
Tensor signed_columns(const Tensor& V) {
  const Tensor index = V.abs().argmax(-2, true);
  const Tensor sign = V.gather(-2, index).sign();
  return V * sign;
}

// A symmetric batch with well-separated eigenvalues.
Tensor symmetric(std::vector<int64_t> shape, uint64_t seed) {
  Tensor X = et::make_input(shape, kDouble, seed);
  return X + X.transpose(-2, -1);
}

// The matrix [rows, cols] column-major, as the kernels take it.
std::vector<double> column_major(const Tensor& A) {
  const int64_t rows = A.size(0), cols = A.size(1);
  const Tensor c = A.contiguous();
  std::vector<double> out(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) out[i + j * rows] = c.data_ptr<double>()[i * cols + j];
  return out;
}
Tensor from_column_major(std::vector<double>& a, int64_t rows, int64_t cols) {
  return from_blob(a.data(), {cols, rows}, kDouble).t().contiguous();
}

}  // namespace

TEST(LinalgDecompositions, HouseholderKernelMatchesLapack) {
  // kernel_math's geqr2/org2r against the CPU backend's LAPACK geqrf/orgqr (through linalg::qr):
  // the same reflector signs, so Q and R agree to rounding, tall, square and wide.
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{5, 3}, {4, 4}, {3, 6}, {1, 1}}) {
    Tensor A = et::make_input({m, n}, kDouble, 30 + m * n);
    auto [Q, R] = linalg::qr(A, "complete");
    std::vector<double> a = column_major(A);
    const int64_t k = std::min(m, n);
    std::vector<double> tau(static_cast<size_t>(k));
    householder_qr_column_major(a.data(), tau.data(), m, n);
    const std::string ctx = std::to_string(m) + "x" + std::to_string(n);
    expect_close(from_column_major(a, m, n).triu(), R, 1e-12, 1e-12, ctx);
    std::vector<double> q(static_cast<size_t>(m * m));
    for (int64_t i = 0; i < m * k; ++i) q[i] = a[i];
    householder_product_column_major(q.data(), tau.data(), m, m, k);
    expect_close(from_column_major(q, m, m), Q, 1e-12, 1e-12, ctx);
  }
}

TEST(LinalgDecompositions, JacobiKernelsMatchLapack) {
  // The Jacobi eigendecomposition and SVD against syevd and gesdd: the same values, the same
  // vectors up to sign, orthonormal vectors; a rank-deficient matrix still gets an orthonormal U.
  for (int64_t n : {1, 2, 5, 8}) {
    Tensor A = symmetric({n, n}, 40 + n);
    auto [L, V] = linalg::eigh(A);
    std::vector<double> a = column_major(A), v(static_cast<size_t>(n * n)), w(n);
    EXPECT_EQ(jacobi_eigh(JacobiMatrix<double>{a.data(), 1, n},
                          JacobiMatrix<double>{v.data(), 1, n}, w.data(), n),
              0);
    expect_close(from_blob(w.data(), {n}, kDouble), L, 1e-12, 1e-12, "eigh n=" + std::to_string(n));
    expect_close(signed_columns(from_column_major(v, n, n)), signed_columns(V), 1e-10, 1e-10);
  }
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{6, 4}, {4, 4}, {1, 3}}) {
    Tensor A = et::make_input({m, n}, kDouble, 50 + m * n);
    if (m < n) A = A.t().contiguous();  // the kernel takes tall matrices
    const int64_t rows = A.size(0), cols = A.size(1);
    auto [U, S, Vh] = linalg::svd(A, false);
    std::vector<double> w = column_major(A), v(static_cast<size_t>(cols * cols)), s(cols);
    EXPECT_EQ(jacobi_svd(JacobiMatrix<double>{w.data(), 1, rows},
                         JacobiMatrix<double>{v.data(), 1, cols}, s.data(), rows, cols),
              0);
    expect_close(from_blob(s.data(), {cols}, kDouble), S, 1e-12, 1e-12, "svd");
    expect_close(signed_columns(from_column_major(w, rows, cols)), signed_columns(U), 1e-10, 1e-10);
    expect_close(signed_columns(from_column_major(v, cols, cols)), signed_columns(Vh.t()), 1e-10,
                 1e-10);
  }
  // Rank 1: the second column of U is completed, orthonormal.
  Tensor outer = tensor({1.0, 2.0, 3.0}, kDouble)
                     .reshape({3, 1})
                     .matmul(tensor({1.0, -1.0}, kDouble).reshape({1, 2}));
  std::vector<double> w = column_major(outer), v(4), s(2);
  EXPECT_EQ(jacobi_svd(JacobiMatrix<double>{w.data(), 1, 3}, JacobiMatrix<double>{v.data(), 1, 2},
                       s.data(), 3, 2),
            0);
  Tensor U = from_column_major(w, 3, 2);
  expect_close(U.t().matmul(U), eye(2, kDouble), 1e-12, 1e-12, "completed U");
  EXPECT_NEAR(s[1], 0.0, 1e-12);
}

TEST(LinalgDecompositions, QrEveryModeOnEveryDevice) {
  Tensor tall = et::make_input({2, 5, 3}, kDouble, 1);
  Tensor wide = et::make_input({3, 5}, kDouble, 2);
  auto r = torch_run(
      "q, r = torch.linalg.qr(t); qc, rc = torch.linalg.qr(t, mode='complete');"
      "_, rr = torch.linalg.qr(t, mode='r'); qw, rw = torch.linalg.qr(w);"
      "qo, ro = torch.qr(t, some=False)",
      {{"t", tall}, {"w", wide}}, {"q", "r", "qc", "rc", "rr", "qw", "rw", "qo", "ro"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor t = tall.to(dev), w = wide.to(dev);
    auto [q, rr] = linalg::qr(t);
    expect_close(q.cpu(), r.at("q"), 1e-10, 1e-10, ctx);
    expect_close(rr.cpu(), r.at("r"), 1e-10, 1e-10, ctx);
    auto [qc, rc] = linalg::qr(t, "complete");
    expect_close(qc.cpu(), r.at("qc"), 1e-10, 1e-10, ctx);
    expect_close(rc.cpu(), r.at("rc"), 1e-10, 1e-10, ctx);
    auto [empty_q, r_only] = linalg::qr(t, "r");
    EXPECT_EQ(empty_q.numel(), 0) << ctx;
    expect_close(r_only.cpu(), r.at("rr"), 1e-10, 1e-10, ctx);
    auto [qw, rw] = linalg::qr(w);
    expect_close(qw.cpu(), r.at("qw"), 1e-10, 1e-10, ctx);
    expect_close(rw.cpu(), r.at("rw"), 1e-10, 1e-10, ctx);
    auto [qo, ro] = ember::qr(t, false);
    expect_close(qo.cpu(), r.at("qo"), 1e-10, 1e-10, ctx);
    expect_close(ro.cpu(), r.at("ro"), 1e-10, 1e-10, ctx);
    // float32 and an empty batch.
    expect_close(std::get<1>(linalg::qr(t.to(kFloat))).cpu(), r.at("r").to(kFloat), 1e-4, 1e-5,
                 ctx);
    EXPECT_EQ(std::get<0>(linalg::qr(zeros({0, 4, 2}, kDouble).to(dev))).sizes(),
              IntArrayRef({0, 4, 2}));
    expect_close(std::get<0>(linalg::qr(zeros({3, 0}, kDouble).to(dev), "complete")).cpu(),
                 eye(3, kDouble), 0, 0, ctx);
  }
}

TEST(LinalgDecompositions, EighAndSvdOnEveryDevice) {
  Tensor S = symmetric({3, 4, 4}, 3);
  Tensor skewed = S.clone();
  skewed.select(-1, 3).select(-1, 0).fill_(50.0);  // above the diagonal: "L" ignores it
  Tensor tall = et::make_input({2, 5, 3}, kDouble, 4), wide = et::make_input({3, 6}, kDouble, 5);
  auto r = torch_run(
      "l, v = torch.linalg.eigh(s); lu, vu = torch.linalg.eigh(k, UPLO='U');"
      "ll = torch.linalg.eigvalsh(k); u, sv, vh = torch.linalg.svd(t, full_matrices=False);"
      "uw, sw, vhw = torch.linalg.svd(w); st = torch.linalg.svdvals(t)",
      {{"s", S}, {"k", skewed}, {"t", tall}, {"w", wide}},
      {"l", "v", "lu", "vu", "ll", "u", "sv", "vh", "uw", "sw", "vhw", "st"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    auto [l, v] = linalg::eigh(S.to(dev));
    expect_close(l.cpu(), r.at("l"), 1e-10, 1e-10, ctx);
    expect_close(signed_columns(v.cpu()), signed_columns(r.at("v")), 1e-9, 1e-9, ctx);
    auto [lu, vu] = linalg::eigh(skewed.to(dev), "U");
    expect_close(lu.cpu(), r.at("lu"), 1e-10, 1e-10, ctx);
    expect_close(signed_columns(vu.cpu()), signed_columns(r.at("vu")), 1e-9, 1e-9, ctx);
    expect_close(linalg::eigvalsh(skewed.to(dev)).cpu(), r.at("ll"), 1e-10, 1e-10, ctx);
    auto [u, s, vh] = linalg::svd(tall.to(dev), false);
    expect_close(s.cpu(), r.at("sv"), 1e-10, 1e-10, ctx);
    expect_close(signed_columns(u.cpu()), signed_columns(r.at("u")), 1e-9, 1e-9, ctx);
    expect_close(signed_columns(vh.cpu().transpose(-2, -1)),
                 signed_columns(r.at("vh").transpose(-2, -1)), 1e-9, 1e-9, ctx);
    expect_close(linalg::svdvals(tall.to(dev)).cpu(), r.at("st"), 1e-10, 1e-10, ctx);
    // full_matrices on a wide matrix: Vh [6, 6] orthogonal, its first 3 rows the reduced ones,
    // and U diag(S) Vh[:3] rebuilds the input.
    auto [uw, sw, vhw] = linalg::svd(wide.to(dev));
    EXPECT_EQ(vhw.sizes(), IntArrayRef({6, 6})) << ctx;
    expect_close(sw.cpu(), r.at("sw"), 1e-10, 1e-10, ctx);
    expect_close(vhw.matmul(vhw.t()).cpu(), eye(6, kDouble), 1e-10, 1e-10, ctx);
    expect_close(uw.matmul(diag_embed(sw)).matmul(vhw.narrow(0, 0, 3)).cpu(), wide, 1e-10, 1e-10,
                 ctx);
    // full_matrices on a tall one: U [5, 5] orthogonal.
    Tensor U_full = std::get<0>(linalg::svd(tall.to(dev)));
    expect_close(U_full.transpose(-2, -1).matmul(U_full).cpu(), eye(5, kDouble).expand({2, 5, 5}),
                 1e-10, 1e-10, ctx);
    // torch.svd: V, not Vh; compute_uv=false zero-fills square U and V.
    auto [U1, S1, V1] = ember::svd(tall.to(dev));
    expect_close(U1.matmul(diag_embed(S1)).matmul(V1.transpose(-2, -1)).cpu(), tall, 1e-10, 1e-10,
                 ctx);
    auto [U0, S0, V0] = ember::svd(tall.to(dev), true, false);
    EXPECT_EQ(U0.sizes(), IntArrayRef({2, 5, 5})) << ctx;
    EXPECT_EQ(V0.sizes(), IntArrayRef({2, 3, 3})) << ctx;
    EXPECT_EQ(U0.abs().sum().item<double>(), 0.0) << ctx;
    // float32, and a rank-deficient matrix whose U stays orthonormal.
    expect_close(linalg::svdvals(tall.to(dev).to(kFloat)).cpu(), r.at("st").to(kFloat), 1e-4, 1e-5,
                 ctx);
    Tensor rank1 = ones({4, 3}, kDouble).to(dev);
    Tensor U_r = std::get<0>(linalg::svd(rank1, false));
    expect_close(U_r.t().matmul(U_r).cpu(), eye(3, kDouble), 1e-10, 1e-10, ctx);
  }
}

TEST(LinalgDecompositions, GradientsAndDoubleBackwardMatchPyTorch) {
  // Sign-free functions of the vectors: squares of their entries, U Vh, the values themselves.
  Tensor A = symmetric({2, 4, 4}, 6), T = et::make_input({5, 3}, kDouble, 7);
  Tensor W = et::make_input({3, 5}, kDouble, 8);
  auto r = torch_run(
      "a.requires_grad_(); t.requires_grad_(); w.requires_grad_()\n"
      "l, v = torch.linalg.eigh(a)\n"
      "u, s, vh = torch.linalg.svd(t, full_matrices=False)\n"
      "uw, sw, vhw = torch.linalg.svd(w, full_matrices=False)\n"
      "q, r = torch.linalg.qr(t); qw, rw = torch.linalg.qr(w)\n"
      "y = (l ** 3).sum() + (v ** 4).sum() + (s ** 2).sum() + (u ** 4).sum() + (vh ** 4).sum()"
      " + (uw @ vhw).sin().sum() + (q * q.detach().cos()).sum() + (r ** 2).sum()"
      " + (qw.sin()).sum() + (rw * rw.detach().cos()).sum()"
      " + torch.linalg.eigvalsh(a).exp().sum() + torch.linalg.svdvals(w).sum()\n"
      "ga, gt, gw = torch.autograd.grad(y, (a, t, w), create_graph=True)\n"
      "gga, ggt, ggw = torch.autograd.grad((ga ** 2).sum() + (gt ** 2).sum() + (gw ** 2).sum(),"
      " (a, t, w))",
      {{"a", A}, {"t", T}, {"w", W}}, {"ga", "gt", "gw", "gga", "ggt", "ggw"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    Tensor a = A.to(dev).requires_grad_(), t = T.to(dev).requires_grad_(),
           w = W.to(dev).requires_grad_();
    auto [l, v] = linalg::eigh(a);
    auto [u, s, vh] = linalg::svd(t, false);
    auto [uw, sw, vhw] = linalg::svd(w, false);
    auto [q, rr] = linalg::qr(t);
    auto [qw, rw] = linalg::qr(w);
    Tensor y = l.pow(3).sum() + v.pow(4).sum() + s.pow(2).sum() + u.pow(4).sum() + vh.pow(4).sum() +
               uw.matmul(vhw).sin().sum() + (q * q.detach().cos()).sum() + rr.pow(2).sum() +
               qw.sin().sum() + (rw * rw.detach().cos()).sum() + linalg::eigvalsh(a).exp().sum() +
               linalg::svdvals(w).sum();
    auto g = autograd::grad({y}, {a, t, w}, {}, std::nullopt, true);
    expect_close(g[0].cpu(), r.at("ga"), 1e-8, 1e-8, ctx + " eigh");
    expect_close(g[1].cpu(), r.at("gt"), 1e-8, 1e-8, ctx + " tall");
    expect_close(g[2].cpu(), r.at("gw"), 1e-8, 1e-8, ctx + " wide");
    auto gg =
        autograd::grad({g[0].pow(2).sum() + g[1].pow(2).sum() + g[2].pow(2).sum()}, {a, t, w});
    expect_close(gg[0].cpu(), r.at("gga"), 1e-7, 1e-7, ctx + " eigh, second");
    expect_close(gg[1].cpu(), r.at("ggt"), 1e-7, 1e-7, ctx + " tall, second");
    expect_close(gg[2].cpu(), r.at("ggw"), 1e-7, 1e-7, ctx + " wide, second");
  }
}

TEST(LinalgDecompositions, BadInputRaisesPyTorchsErrors) {
  Tensor square = eye(3, kDouble), tall = ones({4, 2}, kDouble);
  EXPECT_EQ(error_of<ValueError>([&] { linalg::qr(square, "economic"); }),
            "qr received unrecognized mode 'economic' but expected one of 'reduced' (default), "
            "'r', or 'complete'");
  EXPECT_EQ(error_of<ValueError>([&] { linalg::eigh(square, "X"); }),
            "Expected UPLO argument to be 'L' or 'U', but got X");
  EXPECT_EQ(error_of<ValueError>([&] { linalg::eigh(tall); }),
            "linalg.eigh: A must be batches of square matrices, but they are 4 by 2 matrices");
  EXPECT_EQ(error_of<ValueError>([&] { linalg::svd(ones({3}, kDouble)); }),
            "linalg.svd: The input tensor A must have at least 2 dimensions.");
  EXPECT_EQ(error_of<TypeError>([&] {
              linalg::svdvals(ones({2, 2}, kLong));
            }),
            "linalg.svd: Expected a floating point or complex tensor as input. Got Long");
  // Differentiating mode "r", or "complete" of a tall matrix, fails in backward, as PyTorch.
  Tensor x = tall.clone().requires_grad_();
  EXPECT_NE(error_of<Error>([&] {
              std::get<1>(linalg::qr(x, "r")).sum().backward();
            }).find("which is not computed when mode='r'"),
            std::string::npos);
  EXPECT_EQ(error_of<Error>([&] { std::get<0>(linalg::qr(x, "complete")).sum().backward(); }),
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  // The process goes on: the same input still factorises.
  EXPECT_EQ(std::get<1>(linalg::qr(tall)).sizes(), IntArrayRef({2, 2}));
}
