// linalg.vector_norm, matrix_norm, norm, pinv, matrix_rank, matrix_exp and the top-level
// matrix_exp, cholesky_solve and pinverse (src/ops/linalg_norms.cpp, linalg_functions.cpp)
// beyond their op rows: every ord, dim, keepdim and dtype against PyTorch with the gradients
// PyTorch computes (not finite differences), on every device in float32 and float64; zero vectors;
// tolerances; large-norm scaling; broadcasting; second derivatives; and the errors' messages.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ember/autograd.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::torch_run;
namespace et = ember::testing;
// "fro"sv: a bare string literal would also convert to a Scalar (through bool).
using namespace std::string_view_literals;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// One function of x: ember's, and PyTorch's as an expression of x (L is torch.linalg).
struct Case {
  std::string torch;
  std::function<Tensor(const Tensor&)> fn;
  bool grad = true;
};

// Each case against PyTorch on every device: its value and, where it has one, the gradient of
// sum(y * w) (w from -1 to 1: a weight that differs per element), from PyTorch's own backward.
void check_cases(const Tensor& X, const std::vector<Case>& cases, double rtol, double atol,
                 const std::string& what) {
  std::string py = "import math\ninf = math.inf\nL = torch.linalg\nx = x.requires_grad_()\n";
  std::vector<std::string> names;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string n = std::to_string(i);
    py += "y" + n + " = " + cases[i].torch + "\n";
    names.push_back("y" + n);
    if (cases[i].grad) {
      py += "w = torch.linspace(-1, 1, y" + n + ".numel(), dtype=y" + n + ".dtype)\n";
      py += "g" + n + ", = torch.autograd.grad((y" + n + " * w.reshape(y" + n +
            ".shape)).sum(), x)\n";
      names.push_back("g" + n);
    }
    py += "y" + n + " = y" + n + ".detach()\n";
  }
  const auto r = torch_run(py, {{"x", X}}, names);
  for (Device dev : et::test_devices()) {
    for (size_t i = 0; i < cases.size(); ++i) {
      const std::string n = std::to_string(i);
      const std::string ctx = what + " " + cases[i].torch + " on " + dev.str();
      Tensor x = X.to(dev).detach().requires_grad_(cases[i].grad);
      Tensor y = cases[i].fn(x);
      expect_close(y.detach().cpu(), r.at("y" + n), rtol, atol, ctx);
      if (!cases[i].grad) continue;
      const Tensor w = linspace(-1, 1, y.numel(), y.options()).reshape(y.sizes());
      auto g = autograd::grad({(y * w).sum()}, {x});
      expect_close(g[0].cpu(), r.at("g" + n), rtol * 10, atol * 10, ctx + " (gradient)");
    }
  }
}

std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  return s;
}

double rtol_of(ScalarType t) {
  return t == kDouble ? 1e-10 : 1e-5;
}
double atol_of(ScalarType t) {
  return t == kDouble ? 1e-12 : 1e-6;
}

// A random [*, m, n] whose singular values are spread apart (1 to 4), for the SVD-based ords:
// their gradients are only defined for distinct singular values.
Tensor spread(std::vector<int64_t> shape, ScalarType dtype, uint64_t seed) {
  Tensor a = et::make_input(shape, kDouble, seed);
  const int64_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
  auto [U, S, Vh] = linalg::svd(a, false);
  Tensor s = arange(k, TensorOptions().dtype(kDouble)).mul(3.0 / std::max<int64_t>(k - 1, 1)) + 1;
  return U.mul(s.flip({0}).unsqueeze(-2)).matmul(Vh).to(dtype);
}

}  // namespace

TEST(LinalgFunctions, VectorNormEveryOrdDimAndKeepdim) {
  for (ScalarType dt : {kDouble, kFloat}) {
    const Tensor X = et::make_input({3, 4, 5}, dt, 1);
    std::vector<Case> cases;
    for (double ord : {2.0, 1.0, kInf, -kInf, 0.0, 3.0, 0.5, 1.5, -1.0, -2.5}) {
      const bool grad = ord != 0;
      cases.push_back({"L.vector_norm(x, " + num(ord) + ")",
                       [=](const Tensor& x) { return linalg::vector_norm(x, ord); }, grad});
      cases.push_back({"L.vector_norm(x, " + num(ord) + ", dim=-1)",
                       [=](const Tensor& x) { return linalg::vector_norm(x, ord, {-1}); }, grad});
      cases.push_back({"L.vector_norm(x, " + num(ord) + ", dim=(0, 2), keepdim=True)",
                       [=](const Tensor& x) {
                         return linalg::vector_norm(x, ord, {0, 2}, true);
                       },
                       grad});
      // A dim of size 1: PyTorch takes |x| itself.
      cases.push_back(
          {"L.vector_norm(x[:, :1], " + num(ord) + ", dim=1)",
           [=](const Tensor& x) { return linalg::vector_norm(x.narrow(1, 0, 1), ord, {1}); },
           grad});
    }
    // An integer ord, dtype, and the float32 input widened to float64.
    cases.push_back({"L.vector_norm(x, 4, dim=(1,), dtype=torch.float64)", [](const Tensor& x) {
                       return linalg::vector_norm(x, 4, {1}, false, kDouble);
                     }});
    check_cases(X, cases, rtol_of(dt), atol_of(dt), to_string(dt));
  }
}

TEST(LinalgFunctions, VectorNormGradientIsZeroAtZero) {
  // A zero vector and zeros inside a vector: PyTorch's backward gives 0 there (not NaN).
  const Tensor X = tensor({0.0, 0.0, 0.0, 0.0, 1.0, -2.0}, kDouble).reshape({2, 3});
  std::vector<Case> cases;
  for (double ord : {2.0, 1.0, kInf, -kInf, 3.0, 0.5, 1.5, -1.0, -0.5}) {
    cases.push_back({"L.vector_norm(x, " + num(ord) + ", dim=1)",
                     [=](const Tensor& x) { return linalg::vector_norm(x, ord, {1}); }});
    cases.push_back({"L.norm(x.flatten(), " + num(ord) + ")",
                     [=](const Tensor& x) { return linalg::norm(x.flatten(), Scalar(ord)); }});
  }
  check_cases(X, cases, 1e-12, 1e-12, "zeros");
  for (Device dev : et::test_devices()) {
    Tensor x = zeros({4}, TensorOptions().dtype(kDouble).device(dev)).requires_grad_();
    for (double ord : {2.0, 3.0, 0.5}) {
      auto g = autograd::grad({linalg::vector_norm(x, ord)}, {x});
      EXPECT_EQ(g[0].abs().sum().item<double>(), 0.0) << ord << " on " << dev.str();
    }
  }
}

TEST(LinalgFunctions, MatrixNormEveryOrd) {
  for (ScalarType dt : {kDouble, kFloat}) {
    const Tensor X = spread({2, 4, 3}, dt, 2);
    std::vector<Case> cases;
    for (double ord : {1.0, -1.0, kInf, -kInf, 2.0, -2.0}) {
      cases.push_back({"L.matrix_norm(x, " + num(ord) + ")",
                       [=](const Tensor& x) { return linalg::matrix_norm(x, ord); }});
      cases.push_back(
          {"L.matrix_norm(x, " + num(ord) + ", dim=(0, 2), keepdim=True)", [=](const Tensor& x) {
             return linalg::matrix_norm(x, ord, {0, 2}, true);
           }});
      cases.push_back({"L.matrix_norm(x, " + num(ord) + ", dim=(-1, 0))", [=](const Tensor& x) {
                         return linalg::matrix_norm(x, ord, {-1, 0});
                       }});
    }
    for (const char* ord : {"fro", "nuc"}) {
      const std::string o = ord;
      cases.push_back({"L.matrix_norm(x, '" + o + "')",
                       [=](const Tensor& x) { return linalg::matrix_norm(x, o); }});
      cases.push_back(
          {"L.matrix_norm(x, '" + o + "', dim=(2, 1), keepdim=True)", [=](const Tensor& x) {
             return linalg::matrix_norm(x, o, {2, 1}, true);
           }});
    }
    cases.push_back({"L.matrix_norm(x)", [](const Tensor& x) { return linalg::matrix_norm(x); }});
    cases.push_back({"L.matrix_norm(x, 1, dtype=torch.float64)", [](const Tensor& x) {
                       return linalg::matrix_norm(x, 1, {-2, -1}, false, kDouble);
                     }});
    cases.push_back({"L.matrix_norm(x, 'nuc', dtype=torch.float64)", [](const Tensor& x) {
                       return linalg::matrix_norm(x, "nuc"sv, {-2, -1}, false, kDouble);
                     }});
    check_cases(X, cases, rtol_of(dt) * 10, atol_of(dt) * 10, to_string(dt));
  }
}

TEST(LinalgFunctions, NormChoosesVectorOrMatrix) {
  const Tensor X = spread({3, 4}, kDouble, 3);
  std::vector<Case> cases = {
      {"L.norm(x)", [](const Tensor& x) { return linalg::norm(x); }},
      {"L.norm(x, 2)", [](const Tensor& x) { return linalg::norm(x, Scalar(2)); }},
      {"L.norm(x, -2)", [](const Tensor& x) { return linalg::norm(x, Scalar(-2)); }},
      {"L.norm(x, inf)", [](const Tensor& x) { return linalg::norm(x, Scalar(kInf)); }},
      {"L.norm(x, 'fro')", [](const Tensor& x) { return linalg::norm(x, "fro"sv); }},
      {"L.norm(x, 'nuc', keepdim=True)",
       [](const Tensor& x) { return linalg::norm(x, "nuc"sv, {}, true); }},
      {"L.norm(x, dim=1)", [](const Tensor& x) { return linalg::norm(x, std::nullopt, {1}); }},
      {"L.norm(x, 3, dim=0)", [](const Tensor& x) { return linalg::norm(x, Scalar(3), {0}); }},
      {"L.norm(x, 1, dim=(1, 0))",
       [](const Tensor& x) {
         return linalg::norm(x, Scalar(1), {1, 0});
       }},
      {"L.norm(x, dim=(0, 1), keepdim=True)",
       [](const Tensor& x) {
         return linalg::norm(x, std::nullopt, {0, 1}, true);
       }},
      {"L.norm(x.reshape(2, 3, 2))",
       [](const Tensor& x) {
         return linalg::norm(x.reshape({2, 3, 2}));
       }},
      {"L.norm(x[0], 0.5)", [](const Tensor& x) { return linalg::norm(x[0], Scalar(0.5)); }},
      {"L.norm(x, 'fro', dim=(0, 1), dtype=torch.float64)",
       [](const Tensor& x) {
         return linalg::norm(x, "fro"sv, {0, 1}, false, kDouble);
       }},
  };
  check_cases(X, cases, 1e-10, 1e-12, "norm");
}

TEST(LinalgFunctions, NormDtypesAndEmptyTensors) {
  // float16 accumulates in float32 and returns float16; dtype widens the result.
  Tensor h = et::make_input({64}, kHalf, 4);
  EXPECT_EQ(linalg::vector_norm(h).scalar_type(), kHalf);
  expect_close(linalg::vector_norm(h).to(kFloat),
               linalg::vector_norm(h.to(kFloat)).to(kHalf).to(kFloat), 1e-3, 1e-3);
  EXPECT_EQ(linalg::vector_norm(h, 2, {}, false, kFloat).scalar_type(), kFloat);
  EXPECT_EQ(linalg::matrix_norm(h.reshape({8, 8}), "nuc"sv).scalar_type(), kHalf);
  // Empty: 0 for the sums, an error where the operation has no identity.
  EXPECT_EQ(linalg::vector_norm(zeros({0, 3})).item<float>(), 0.0f);
  EXPECT_EQ(linalg::vector_norm(zeros({0, 3}), kInf, {1}).sizes(), IntArrayRef({0}));
  EXPECT_EQ(linalg::matrix_norm(zeros({0, 3}), 1).item<float>(), 0.0f);
  EXPECT_EQ(linalg::matrix_norm(zeros({2, 0, 3})).sizes(), IntArrayRef({2}));
}

TEST(LinalgFunctions, NormErrorsArePyTorchs) {
  const Tensor x = zeros({3, 4});
  EXPECT_EQ(error_of([] { linalg::vector_norm(ones({3}, kLong)); }),
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_EQ(error_of([&] { linalg::vector_norm(x, 2, {}, false, kLong); }),
            "linalg.vector_norm: dtype should be floating point or complex, but got Long");
  EXPECT_EQ(error_of([&] { linalg::vector_norm(x.to(kDouble), 2, {}, false, kFloat); }),
            "linalg.vector_norm: the dtype of the input (Double) should be convertible without "
            "narrowing to the specified dtype (Float)");
  EXPECT_EQ(error_of([] { linalg::vector_norm(zeros({0}), -1); }),
            "linalg.vector_norm cannot compute the -1 norm on an empty tensor because the "
            "operation does not have an identity");
  EXPECT_EQ(error_of([] { linalg::vector_norm(zeros({0}), kInf); }),
            "linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
            "operation does not have an identity");
  EXPECT_EQ(error_of([] {
              linalg::vector_norm(zeros({0, 3}), kInf, {0});
            }),
            "linalg.vector_norm cannot compute the inf norm on the dimension 0because this "
            "dimension is empty and the operation does not have an identity");
  EXPECT_EQ(error_of([&] {
              linalg::vector_norm(x, 2, {0, 0});
            }),
            "dim 0 appears multiple times in the list of dims");
  EXPECT_EQ(error_of<IndexError>([&] { linalg::vector_norm(x, 2, {5}); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
  EXPECT_EQ(error_of([&] { linalg::matrix_norm(x, 3); }),
            "linalg.matrix_norm: Order 3 not supported.");
  EXPECT_EQ(error_of([&] { linalg::matrix_norm(x, "abc"sv); }),
            "linalg.matrix_norm: Order abc not supported.");
  EXPECT_EQ(error_of([] { linalg::matrix_norm(ones({3})); }),
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  EXPECT_EQ(error_of([&] { linalg::matrix_norm(x, "fro"sv, {0}); }),
            "linalg.matrix_norm: dim must be a 2-tuple. Got 0");
  EXPECT_EQ(error_of([&] {
              linalg::matrix_norm(x, "fro"sv, {0, 1, 1});
            }),
            "linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 1");
  EXPECT_EQ(error_of([&] {
              linalg::matrix_norm(x, "fro"sv, {0, -2});
            }),
            "linalg.matrix_norm: dims must be different. Got (0, 0)");
  EXPECT_EQ(error_of([] {
              linalg::matrix_norm(ones({3, 3}, kLong));
            }),
            "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_EQ(error_of([&] {
              linalg::matrix_norm(x, "nuc"sv, {-2, -1}, false, kLong);
            }),
            "linalg.matrix_norm: dtype should be floating point or complex, but got Long");
  EXPECT_EQ(error_of([] {
              linalg::norm(ones({2, 2, 2}), Scalar(2));
            }),
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
            "3D.");
  EXPECT_EQ(error_of([] {
              linalg::norm(ones({2, 2, 2}), std::nullopt, {0, 1, 2});
            }),
            "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [0, 1, 2]");
  EXPECT_EQ(error_of([] {
              linalg::norm(ones({2, 2, 2}), "fro"sv, {0, 1, 2});
            }),
            "linalg.norm: If dim is specified, it mut be of length 1 or 2. Got [0, 1, 2]");
  EXPECT_EQ(error_of([] { linalg::norm(ones({3}), "fro"sv); }),
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  EXPECT_EQ(error_of([] {
              linalg::norm(ones({2, 2}, kLong));
            }),
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long");
}

TEST(LinalgFunctions, PinvMatchesPyTorch) {
  for (ScalarType dt : {kDouble, kFloat}) {
    const Tensor X = spread({2, 5, 3}, dt, 5);
    std::vector<Case> cases = {
        {"L.pinv(x)", [](const Tensor& x) { return linalg::pinv(x, std::nullopt, std::nullopt); }},
        {"L.pinv(x.mT)",
         [](const Tensor& x) {
           return linalg::pinv(x.transpose(-2, -1), std::nullopt, std::nullopt);
         }},
        {"torch.pinverse(x)", [](const Tensor& x) { return pinverse(x); }},
        {"L.pinv(x, 1e-15)", [](const Tensor& x) { return linalg::pinv(x, 1e-15); }},
        // Hermitian: a symmetric (indefinite) matrix, through eigh.
        {"L.pinv(x.mT @ x - 6 * torch.eye(3, dtype=x.dtype), hermitian=True)",
         [](const Tensor& x) {
           Tensor s = x.transpose(-2, -1).matmul(x) - eye(3, x.options()) * 6;
           return linalg::pinv(s, std::nullopt, std::nullopt, true);
         }},
    };
    check_cases(X, cases, rtol_of(dt) * 100, atol_of(dt) * 100, to_string(dt));
  }
}

TEST(LinalgFunctions, PinvAndMatrixRankTolerances) {
  // Singular values 1 to 4 scaled by 1, 1e-3 and 1e-9 per matrix, and a rank-2 4 x 3 product.
  Tensor A = spread({3, 4, 3}, kDouble, 6) * tensor({1.0, 1e-3, 1e-9}, kDouble).reshape({3, 1, 1});
  Tensor low = et::make_input({4, 2}, kDouble, 7).matmul(et::make_input({2, 3}, kDouble, 8));
  Tensor sym = low.matmul(low.transpose(-2, -1));  // 4 x 4, rank 2, symmetric
  auto r = torch_run(
      "L = torch.linalg\n"
      "r0 = L.matrix_rank(a); r1 = L.matrix_rank(a, atol=0.5); r2 = L.matrix_rank(a, rtol=0.5)\n"
      "r3 = L.matrix_rank(a, atol=1e-2, rtol=0.5); r4 = L.matrix_rank(low); "
      "r5 = L.matrix_rank(sym, hermitian=True); r6 = L.matrix_rank(a, tol=3.0)\n"
      "r7 = L.matrix_rank(a, atol=-1.0)\n"
      "p0 = L.pinv(a, atol=0.5); p1 = L.pinv(a, rtol=0.3); p2 = L.pinv(low)\n"
      "p3 = L.pinv(sym, hermitian=True); p4 = L.pinv(a, 0.5); p5 = torch.pinverse(low, 1e-3)",
      {{"a", A}, {"low", low}, {"sym", sym}},
      {"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "p0", "p1", "p2", "p3", "p4", "p5"});
  for (Device dev : et::test_devices()) {
    const Tensor a = A.to(dev), l = low.to(dev), s = sym.to(dev);
    const std::string ctx = dev.str();
    expect_close(linalg::matrix_rank(a).cpu(), r.at("r0"), 0, 0, ctx + " r0");
    expect_close(linalg::matrix_rank(a, 0.5).cpu(), r.at("r1"), 0, 0, ctx + " r1");
    expect_close(linalg::matrix_rank(a, std::nullopt, 0.5).cpu(), r.at("r2"), 0, 0, ctx + " r2");
    expect_close(linalg::matrix_rank(a, 1e-2, 0.5).cpu(), r.at("r3"), 0, 0, ctx + " r3");
    expect_close(linalg::matrix_rank(l).cpu(), r.at("r4"), 0, 0, ctx + " r4");
    expect_close(linalg::matrix_rank(s, std::nullopt, std::nullopt, true).cpu(), r.at("r5"), 0, 0,
                 ctx);
    expect_close(linalg::matrix_rank(a, 3.0, 0.0).cpu(), r.at("r6"), 0, 0, ctx + " r6");
    expect_close(linalg::matrix_rank(a, -1.0).cpu(), r.at("r7"), 0, 0, ctx + " r7");
    expect_close(linalg::pinv(a, 0.5, std::nullopt).cpu(), r.at("p0"), 1e-8, 1e-8, ctx + " p0");
    expect_close(linalg::pinv(a, std::nullopt, 0.3).cpu(), r.at("p1"), 1e-8, 1e-8, ctx + " p1");
    expect_close(linalg::pinv(l, std::nullopt, std::nullopt).cpu(), r.at("p2"), 1e-8, 1e-8,
                 ctx + " p2");
    expect_close(linalg::pinv(s, std::nullopt, std::nullopt, true).cpu(), r.at("p3"), 1e-8, 1e-8,
                 ctx);
    expect_close(linalg::pinv(a, 0.5).cpu(), r.at("p4"), 1e-8, 1e-8, ctx + " p4");
    expect_close(pinverse(l, 1e-3).cpu(), r.at("p5"), 1e-8, 1e-8, ctx + " p5");
    // Empty: pinv swaps the sizes, matrix_rank counts 0 per matrix.
    EXPECT_EQ(linalg::pinv(zeros({2, 0, 3}, kDouble).to(dev), 1e-15).sizes(),
              IntArrayRef({2, 3, 0}));
    Tensor rank = linalg::matrix_rank(zeros({2, 0, 3}, kDouble).to(dev));
    EXPECT_EQ(rank.sizes(), IntArrayRef({2}));
    EXPECT_EQ(rank.scalar_type(), kLong);
    EXPECT_EQ(rank.sum().item<int64_t>(), 0);
  }
}

TEST(LinalgFunctions, MatrixExpMatchesPyTorch) {
  // Norms from 0 to about 40 in one batch: each matrix is scaled by its own power of 2.
  Tensor base = et::make_input({6, 4, 4}, kDouble, 9);
  Tensor A = base * tensor({0.0, 0.01, 0.3, 1.0, 3.0, 8.0}, kDouble).reshape({6, 1, 1});
  auto r = torch_run("y = torch.linalg.matrix_exp(a); y1 = torch.matrix_exp(a[3, :1, :1])",
                     {{"a", A}}, {"y", "y1"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    expect_close(linalg::matrix_exp(A.to(dev)).cpu(), r.at("y"), 1e-9, 1e-12, ctx);
    expect_close(matrix_exp(A[3].narrow(0, 0, 1).narrow(1, 0, 1).to(dev)).cpu(), r.at("y1"), 1e-12,
                 1e-12, ctx);
    expect_close(linalg::matrix_exp(A.to(dev).to(kFloat)).cpu(), r.at("y").to(kFloat), 1e-4, 1e-5,
                 ctx);
    // A zero matrix gives I; a diagonal one exp of its diagonal.
    expect_close(linalg::matrix_exp(zeros({3, 3}, kDouble).to(dev)).cpu(), eye(3, kDouble), 0, 0,
                 ctx);
    Tensor d = tensor({-2.0, 0.5, 9.0}, kDouble);
    expect_close(linalg::matrix_exp(diag(d).to(dev)).cpu(), diag(d.exp()), 1e-13, 0, ctx);
    EXPECT_EQ(linalg::matrix_exp(zeros({0, 2, 2}, kDouble).to(dev)).sizes(),
              IntArrayRef({0, 2, 2}));
  }
  // Gradients and second derivatives from PyTorch's own backward (a block-matrix exponential).
  const Tensor X = et::make_input({2, 3, 3}, kDouble, 10) * 1.5;
  check_cases(X, {{"torch.matrix_exp(x)", [](const Tensor& x) { return matrix_exp(x); }}}, 1e-10,
              1e-12, "matrix_exp");
  auto g = torch_run(
      "x.requires_grad_()\n"
      "gx, = torch.autograd.grad(torch.linalg.matrix_exp(x).sin().sum(), x, create_graph=True)\n"
      "ggx, = torch.autograd.grad((gx ** 2).sum(), x)",
      {{"x", X}}, {"gx", "ggx"});
  for (Device dev : et::test_devices()) {
    Tensor x = X.to(dev).detach().requires_grad_();
    auto gx = autograd::grad({linalg::matrix_exp(x).sin().sum()}, {x}, {}, std::nullopt, true);
    expect_close(gx[0].detach().cpu(), g.at("gx"), 1e-9, 1e-10, dev.str());
    auto ggx = autograd::grad({gx[0].pow(2).sum()}, {x});
    expect_close(ggx[0].cpu(), g.at("ggx"), 1e-8, 1e-9, dev.str() + " (second derivative)");
  }
}

TEST(LinalgFunctions, CholeskySolveLowerUpperAndBroadcast) {
  Tensor X = et::make_input({3, 1, 4, 4}, kDouble, 11);
  Tensor A = X.matmul(X.transpose(-2, -1)) + eye(4, kDouble) * 2;
  Tensor Lo = linalg::cholesky(A), Up = linalg::cholesky(A, true);
  Tensor B = et::make_input({2, 4, 3}, kDouble, 12);  // batch [2] broadcasts with [3, 1]
  auto r = torch_run(
      "l.requires_grad_(); u.requires_grad_(); b.requires_grad_()\n"
      "y = torch.cholesky_solve(b, l); yu = torch.cholesky_solve(b, u, upper=True)\n"
      "gl, gb = torch.autograd.grad(y.sin().sum(), (l, b), create_graph=True)\n"
      "gu, gbu = torch.autograd.grad(yu.sin().sum(), (u, b))\n"
      "ggl, = torch.autograd.grad((gl ** 2).sum() + (gb ** 2).sum(), l)",
      {{"l", Lo}, {"u", Up}, {"b", B}}, {"y", "yu", "gl", "gb", "gu", "gbu", "ggl"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    Tensor l = Lo.to(dev).detach().requires_grad_(), u = Up.to(dev).detach().requires_grad_();
    Tensor b = B.to(dev).detach().requires_grad_();
    Tensor y = cholesky_solve(b, l), yu = cholesky_solve(b, u, true);
    expect_close(y.detach().cpu(), r.at("y"), 1e-10, 1e-10, ctx);
    expect_close(yu.detach().cpu(), r.at("yu"), 1e-10, 1e-10, ctx);
    auto g = autograd::grad({y.sin().sum()}, {l, b}, {}, std::nullopt, true);
    expect_close(g[0].detach().cpu(), r.at("gl"), 1e-9, 1e-9, ctx);
    expect_close(g[1].detach().cpu(), r.at("gb"), 1e-9, 1e-9, ctx);
    auto gu = autograd::grad({yu.sin().sum()}, {u, b});
    expect_close(gu[0].cpu(), r.at("gu"), 1e-9, 1e-9, ctx);
    expect_close(gu[1].cpu(), r.at("gbu"), 1e-9, 1e-9, ctx);
    auto gg = autograd::grad({g[0].pow(2).sum() + g[1].pow(2).sum()}, {l});
    expect_close(gg[0].cpu(), r.at("ggl"), 1e-8, 1e-8, ctx + " (second derivative)");
    // Only the factor's triangle is read: junk above the diagonal changes nothing.
    Tensor junk = Lo.to(dev) + ones({4, 4}, kDouble).triu(1).to(dev) * 100;
    expect_close(cholesky_solve(B.to(dev), junk).cpu(), r.at("y"), 1e-10, 1e-10, ctx);
    // float32.
    expect_close(cholesky_solve(B.to(dev).to(kFloat), Lo.to(dev).to(kFloat)).cpu(),
                 r.at("y").to(kFloat), 1e-4, 1e-5, ctx);
  }
}

TEST(LinalgFunctions, SecondDerivativesOfNorms) {
  const Tensor X = spread({3, 4}, kDouble, 13);
  auto r = torch_run(
      "x.requires_grad_(); L = torch.linalg\n"
      "y = L.vector_norm(x, 3, dim=1).sum() + L.matrix_norm(x, 'nuc') + L.pinv(x).pow(2).sum()\n"
      "g, = torch.autograd.grad(y, x, create_graph=True)\n"
      "gg, = torch.autograd.grad((g ** 2).sum(), x)",
      {{"x", X}}, {"g", "gg"});
  for (Device dev : et::test_devices()) {
    Tensor x = X.to(dev).detach().requires_grad_();
    Tensor y = linalg::vector_norm(x, 3, {1}).sum() + linalg::matrix_norm(x, "nuc"sv) +
               linalg::pinv(x, std::nullopt, std::nullopt).pow(2).sum();
    auto g = autograd::grad({y}, {x}, {}, std::nullopt, true);
    expect_close(g[0].detach().cpu(), r.at("g"), 1e-9, 1e-9, dev.str());
    auto gg = autograd::grad({g[0].pow(2).sum()}, {x});
    expect_close(gg[0].cpu(), r.at("gg"), 1e-7, 1e-8, dev.str() + " (second derivative)");
  }
}

TEST(LinalgFunctions, FunctionErrorsArePyTorchs) {
  EXPECT_EQ(error_of([] {
              linalg::matrix_exp(ones({2, 3}));
            }),
            "linalg.matrix_exp: A must be batches of square matrices, but they are 2 by 3 "
            "matrices");
  EXPECT_EQ(error_of([] { linalg::matrix_exp(ones({3})); }),
            "linalg.matrix_exp: The input tensor A must have at least 2 dimensions.");
  EXPECT_EQ(error_of([] {
              matrix_exp(ones({2, 2}, kLong));
            }),
            "matrix_exp: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_EQ(error_of([] { linalg::pinv(ones({3}), 1e-15); }),
            "linalg.pinv(Float{[3]}): expected a tensor with 2 or more dimensions of float, "
            "double, cfloat or cdouble types");
  EXPECT_EQ(error_of([] {
              pinverse(ones({2, 2}, kLong));
            }),
            "linalg.pinv(Long{[2, 2]}): expected a tensor with 2 or more dimensions of float, "
            "double, cfloat or cdouble types");
  EXPECT_EQ(error_of([] { linalg::matrix_rank(ones({3})); }),
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.");
  EXPECT_EQ(error_of([] {
              linalg::matrix_rank(ones({2, 2}, kLong));
            }),
            "This function doesn't handle types other than float and double");
  EXPECT_EQ(error_of([] { cholesky_solve(ones({3}), eye(3)); }),
            "b should have at least 2 dimensions, but has 1 dimensions instead");
  EXPECT_EQ(error_of([] {
              cholesky_solve(ones({3, 2}), ones({3}));
            }),
            "u should have at least 2 dimensions, but has 1 dimensions instead");
  EXPECT_EQ(error_of([] {
              cholesky_solve(ones({3, 2}, kDouble), eye(3));
            }),
            "Expected b and A to have the same dtype, but found b of type Double and A of type "
            "Float instead.");
  EXPECT_EQ(error_of([] {
              cholesky_solve(ones({3, 2}), ones({3, 2}));
            }),
            "A must be batches of square matrices, but they are 3 by 2 matrices");
  EXPECT_EQ(error_of([] {
              cholesky_solve(ones({4, 2}), eye(3));
            }),
            "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b "
            "matrix is 4 by 2");
  EXPECT_EQ(error_of([] {
              cholesky_solve(ones({3, 2}, kLong), eye(3).to(kLong));
            }),
            "\"cholesky_solve_cpu\" not implemented for 'Long'");
  // Ember's broadcasting message, which adds the shapes to PyTorch's.
  EXPECT_TRUE(et::contains(error_of([] {
                             cholesky_solve(ones({2, 4, 2}), eye(4).expand({3, 4, 4}));
                           }),
                           "The size of tensor a (2) must match the size of tensor b (3) at "
                           "non-singleton dimension 0"));
  // 16-bit input, which PyTorch refuses, runs in float32 and is rounded once.
  EXPECT_EQ(linalg::matrix_exp(zeros({2, 2}, kHalf)).scalar_type(), kHalf);
  EXPECT_EQ(linalg::pinv(eye(2, kBFloat16) * 4, 1e-15).scalar_type(), kBFloat16);
  EXPECT_EQ(linalg::matrix_rank(eye(3, kHalf)).item<int64_t>(), 3);
}
