// mm, bmm, addmm, matmul and outer against PyTorch: every rank case of matmul, transposed and
// sliced operands (BLAS transpose flags and copies), several dtypes, gradients and errors.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <sstream>
#include <string>

#include "core/backend.h"
#include "ember/autograd.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::torch_run;
namespace et = ember::testing;

namespace {

// A matrix with the given values stored column-major (a transposed view).
Tensor col_major(const Tensor& m) {
  return m.t().contiguous().t();
}
// The same values as a strided slice (every other column of a wider matrix): not BLAS-readable.
Tensor strided(const Tensor& m) {
  Tensor wide = zeros({m.size(0), m.size(1) * 2}, m.dtype());
  Tensor s = wide.slice(1, 0, m.size(1) * 2, 2);
  s.copy_(m);
  return s;
}

double tol_for(ScalarType t) {
  return t == kBFloat16 ? 2e-2 : t == kHalf ? 5e-3 : t == kFloat ? 1e-5 : 1e-12;
}

}  // namespace

TEST(Mm, LayoutsAndDtypes) {
  for (ScalarType dt : {kFloat, kDouble, kLong, kInt, kBFloat16}) {
    Tensor a = et::make_input({7, 5}, dt, 1), b = et::make_input({5, 6}, dt, 2);
    auto r = torch_run("y = a @ b", {{"a", a}, {"b", b}});
    const double tol = tol_for(dt);
    std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> forms = {
        {"contiguous", [](const Tensor& m) { return m; }},
        {"col_major", col_major},
        {"strided", strided}};
    for (auto& [na, fa] : forms) {
      for (auto& [nb, fb] : forms) {
        const std::string ctx = std::string(to_string(dt)) + " " + na + " x " + nb;
        expect_close(mm(fa(a), fb(b)), r.at("y"), tol, tol, ctx);
      }
    }
  }
}

TEST(Mm, HalfAccumulatesInFloat) {
  // PyTorch 1.13 has no CPU half matmul: compare with float32 rounded once.
  Tensor a = et::make_input({9, 33}, kHalf, 3), b = et::make_input({33, 4}, kHalf, 4);
  expect_close(mm(a, b), mm(a.to(kFloat), b.to(kFloat)).to(kHalf), 1e-3, 1e-3);
}

TEST(Mm, LargeAndEmpty) {
  Tensor a = et::make_input({300, 200}, kFloat, 5), b = et::make_input({200, 250}, kFloat, 6);
  auto r = torch_run("y = a @ b; z = a.t() @ a", {{"a", a}, {"b", b}}, {"y", "z"});
  expect_close(mm(a, b), r.at("y"), 1e-4, 1e-4);
  expect_close(mm(a.t(), a), r.at("z"), 1e-4, 1e-4);
  // K == 0 gives zeros; M or N == 0 gives an empty result.
  expect_close(mm(zeros({3, 0}), zeros({0, 4})), zeros({3, 4}), 0, 0);
  EXPECT_EQ(mm(zeros({0, 3}), zeros({3, 4})).sizes(), IntArrayRef({0, 4}));
}

TEST(Mm, OutputLayoutsInTheBackend) {
  // The backend writes into column-major and strided outputs, and honours alpha and beta.
  Tensor a = et::make_input({4, 3}, kDouble, 7), b = et::make_input({3, 5}, kDouble, 8),
         c = et::make_input({4, 5}, kDouble, 9);
  auto r = torch_run("y = 0.5 * c + 2.0 * (a @ b)", {{"a", a}, {"b", b}, {"c", c}});
  for (auto make : {col_major, strided}) {
    Tensor out = make(c);
    Tensor a3 = a.unsqueeze(0), b3 = b.unsqueeze(0), o3 = out.unsqueeze(0);
    cpu_backend().gemm(o3, a3, b3, 2.0, 0.5);
    expect_close(out, r.at("y"), 1e-12, 1e-12);
  }
}

TEST(Mm, SummedBatchInTheBackend) {
  // out with batch 1 and operands with batch 6: the products are summed (a weight gradient),
  // with alpha and beta, in every dtype and with a shared (batch-1) operand, on every device.
  for (Device device : et::test_devices()) {
    for (ScalarType dt : {kFloat, kDouble, kLong, kBFloat16}) {
      Tensor a = et::make_input({6, 4, 3}, dt, 12), b = et::make_input({6, 3, 5}, dt, 13),
             shared = et::make_input({1, 4, 3}, dt, 14), c = et::make_input({1, 4, 5}, dt, 15);
      const bool exact = dt == kLong;
      const double beta = exact ? 1.0 : 0.5, tol = dt == kBFloat16 ? 3e-2 : 1e-5;
      auto r = torch_run(std::string("y = ") + (exact ? "c" : "0.5 * c") +
                             " + 2 * torch.bmm(a, b).sum(0, keepdim=True)\n"
                             "z = 2 * torch.bmm(s.expand(6, 4, 3), b).sum(0, keepdim=True)",
                         {{"a", a}, {"b", b}, {"s", shared}, {"c", c}}, {"y", "z"});
      Tensor out = c.to(device).clone();
      if (device.is_cuda() && dt == kLong) {  // as PyTorch: no integer GEMM on CUDA
        EXPECT_TRUE(et::contains(et::error_of([&] {
                                   backend_for(device).gemm(out, a.to(device), b.to(device), 2.0,
                                                            beta);
                                 }),
                                 "\"addmm_cuda\" not implemented for 'Long'"));
        continue;
      }
      backend_for(device).gemm(out, a.to(device), b.to(device), 2.0, beta);
      expect_close(out.cpu(), r.at("y"), tol, tol, std::string("summed ") + to_string(dt));
      Tensor out2 = c.to(device).clone();
      backend_for(device).gemm(out2, shared.to(device), b.to(device), 2.0, 0.0);
      expect_close(out2.cpu(), r.at("z"), tol, tol, std::string("shared a ") + to_string(dt));
    }
  }
}

TEST(Bmm, BatchesAndTransposedBatches) {
  for (ScalarType dt : {kFloat, kDouble, kLong}) {
    Tensor a = et::make_input({4, 3, 5}, dt, 10), b = et::make_input({4, 5, 2}, dt, 11);
    auto r = torch_run("y = torch.bmm(a, b)", {{"a", a}, {"b", b}});
    const double tol = tol_for(dt);
    expect_close(bmm(a, b), r.at("y"), tol, tol, to_string(dt));
    expect_close(a.bmm(et::non_contiguous(b)), r.at("y"), tol, tol, to_string(dt));
    Tensor ap = a.permute({1, 0, 2}).contiguous().permute({1, 0, 2});  // batch not outermost
    expect_close(bmm(ap, b), r.at("y"), tol, tol, to_string(dt));
  }
  // Many small products run batch-parallel.
  Tensor a = et::make_input({64, 8, 8}, kFloat, 12), b = et::make_input({64, 8, 8}, kFloat, 13);
  auto r = torch_run("y = torch.bmm(a, b)", {{"a", a}, {"b", b}});
  expect_close(bmm(a, b), r.at("y"), 1e-5, 1e-5);
}

TEST(Matmul, EveryRankCase) {
  struct Case {
    std::vector<int64_t> a, b;
  };
  const std::vector<Case> cases = {
      {{4}, {4}},
      {{3, 4}, {4}},
      {{4}, {4, 5}},
      {{3, 4}, {4, 5}},
      {{2, 3, 4}, {4}},
      {{2, 3, 4}, {4, 5}},
      {{4}, {2, 4, 5}},
      {{3, 4}, {2, 4, 5}},
      {{2, 3, 4}, {2, 4, 5}},
      {{2, 1, 3, 4}, {5, 4, 2}},
      {{1, 3, 4}, {6, 4, 2}},
      {{5, 2, 3, 4}, {4}},
  };
  for (ScalarType dt : {kFloat, kDouble, kLong}) {
    for (const Case& c : cases) {
      Tensor a = et::make_input(c.a, dt, 20), b = et::make_input(c.b, dt, 21);
      auto r = torch_run("y = torch.matmul(a, b)", {{"a", a}, {"b", b}});
      std::ostringstream os;
      os << to_string(dt) << " " << a.sizes() << " @ " << b.sizes();
      const std::string ctx = os.str();
      const double tol = tol_for(dt);
      expect_close(matmul(a, b), r.at("y"), tol, tol, ctx);
      expect_close(et::non_contiguous(a).matmul(et::non_contiguous(b)), r.at("y"), tol, tol,
                   ctx + " non-contiguous");
    }
  }
}

TEST(Addmm, BetaAlphaAndBroadcastSelf) {
  Tensor a = et::make_input({3, 4}, kDouble, 30), b = et::make_input({4, 5}, kDouble, 31);
  for (std::vector<int64_t> shape : {std::vector<int64_t>{3, 5}, {5}, {1, 5}, {3, 1}, {}}) {
    Tensor self = et::make_input(shape, kDouble, 32);
    auto r = torch_run(
        "y0 = torch.addmm(s, a, b); y1 = torch.addmm(s, a, b, beta=0.5, alpha=-2.0);"
        "y2 = torch.addmm(s, a.t().contiguous().t(), b, beta=0)",
        {{"s", self}, {"a", a}, {"b", b}}, {"y0", "y1", "y2"});
    expect_close(addmm(self, a, b), r.at("y0"), 1e-12, 1e-12);
    expect_close(addmm(self, a, b, 0.5, -2.0), r.at("y1"), 1e-12, 1e-12);
    expect_close(addmm(self, col_major(a), b, 0), r.at("y2"), 1e-12, 1e-12);
  }
  // beta = 0 ignores NaN in self, as BLAS and PyTorch do.
  Tensor nan_self = full({3, 5}, std::numeric_limits<double>::quiet_NaN(), kDouble);
  expect_close(addmm(nan_self, a, b, 0), mm(a, b), 0, 0);
}

TEST(Outer, Values) {
  Tensor a = et::make_input({4}, kFloat, 40), b = et::make_input({3}, kFloat, 41);
  auto r = torch_run("y = torch.outer(a, b)", {{"a", a}, {"b", b}});
  expect_close(outer(a, b), r.at("y"), 1e-6, 1e-7);
}

TEST(LinalgErrors, ShapesDtypesDevicesRanks) {
  std::string msg = error_of<ValueError>([] { mm(ones({2, 3}), ones({4, 5})); });
  EXPECT_EQ(msg, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  msg = error_of<ValueError>([] { matmul(ones({2, 3}), ones({4, 5})); });
  EXPECT_EQ(msg, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  msg = error_of<TypeError>([] { mm(ones({2, 3}), ones({3, 5}, kDouble)); });
  EXPECT_TRUE(contains(msg, "Float") && contains(msg, "Double")) << msg;
  msg = error_of<TypeError>([] { matmul(ones({3}), ones({3}, kLong)); });
  EXPECT_TRUE(contains(msg, "Float") && contains(msg, "Long")) << msg;
  msg = error_of<ValueError>([] { matmul(ones({3}), ones({4})); });
  EXPECT_TRUE(contains(msg, "inconsistent tensor size") && contains(msg, "3") && contains(msg, "4"))
      << msg;
  msg = error_of<ValueError>([] { bmm(ones({2, 3, 4}), ones({2, 5, 4})); });
  EXPECT_TRUE(contains(msg, "[2, 4]") && contains(msg, "[2, 5]")) << msg;
  msg = error_of<ValueError>([] { matmul(ones({2, 3, 4}), ones({3, 4, 5})); });
  EXPECT_TRUE(contains(msg, "size of tensor a (2)") || contains(msg, "[2, 3, 4]")) << msg;
  msg = error_of<ValueError>([] { matmul(ones({2, 3, 4}), ones({2, 5, 6})); });
  EXPECT_TRUE(contains(msg, "4 != 5")) << msg;
  msg = error_of<ValueError>([] { matmul(scalar_tensor(1.0), ones({2})); });
  EXPECT_TRUE(contains(msg, "at least 1D") && contains(msg, "0D")) << msg;
  msg = error_of<ValueError>([] { mm(ones({2}), ones({2, 2})); });
  EXPECT_TRUE(contains(msg, "matrix")) << msg;
  msg = error_of<ValueError>([] { addmm(ones({2, 2}), ones({3, 4}), ones({4, 5})); });
  EXPECT_TRUE(contains(msg, "[2, 2]")) << msg;
  msg = error_of<TypeError>([] { mm(ones({2, 2}, kBool), ones({2, 2}, kBool)); });
  EXPECT_TRUE(contains(msg, "Bool")) << msg;
  EXPECT_EQ(mm(ones({1, 1}), ones({1, 1})).item<float>(), 1.0f);  // still working
}

// ---- gradients ----

TEST(LinalgGrad, MatchesPyTorch) {
  struct Case {
    std::string name;
    std::vector<std::vector<int64_t>> shapes;
    std::function<Tensor(const std::vector<Tensor>&)> f;
    std::string py;
  };
  const std::vector<Case> cases = {
      {"mm", {{3, 4}, {4, 5}}, [](auto& v) { return mm(v[0], v[1]); }, "torch.mm(a, b)"},
      {"bmm", {{2, 3, 4}, {2, 4, 5}}, [](auto& v) { return bmm(v[0], v[1]); }, "torch.bmm(a, b)"},
      {"matmul_dot", {{4}, {4}}, [](auto& v) { return matmul(v[0], v[1]); }, "a @ b"},
      {"matmul_mv", {{3, 4}, {4}}, [](auto& v) { return matmul(v[0], v[1]); }, "a @ b"},
      {"matmul_vm", {{4}, {4, 5}}, [](auto& v) { return matmul(v[0], v[1]); }, "a @ b"},
      {"matmul_fold", {{2, 3, 4}, {4, 5}}, [](auto& v) { return matmul(v[0], v[1]); }, "a @ b"},
      {"matmul_bcast",
       {{2, 1, 3, 4}, {5, 4, 2}},
       [](auto& v) { return matmul(v[0], v[1]); },
       "a @ b"},
      {"addmm",
       {{5}, {3, 4}, {4, 5}},
       [](auto& v) { return addmm(v[0], v[1], v[2], 0.5, 2.0); },
       "torch.addmm(c, a, b, beta=0.5, alpha=2.0)"},
      {"outer", {{4}, {3}}, [](auto& v) { return outer(v[0], v[1]); }, "torch.outer(a, b)"},
  };
  for (const Case& c : cases) {
    for (bool noncontig : {false, true}) {
      std::vector<Tensor> in;
      std::map<std::string, Tensor> py_in;
      const char* names[] = {"a", "b", "c"};
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        Tensor t = et::make_input(c.shapes[i], kDouble, et::seed_for(c.name) + i);
        if (noncontig) t = et::non_contiguous(t);
        in.push_back(t.detach().requires_grad_());
      }
      // addmm's inputs are (self, mat1, mat2): name them c, a, b in Python.
      const bool addmm_case = c.name == "addmm";
      for (size_t i = 0; i < in.size(); ++i) {
        const char* n = addmm_case ? (i == 0 ? "c" : i == 1 ? "a" : "b") : names[i];
        py_in[n] = in[i].detach().requires_grad_();
      }
      Tensor y = c.f(in);
      Tensor gy = et::make_input(y.sizes().vec(), kDouble, 77);
      py_in["gy"] = gy;
      y.backward(gy);
      std::string py = "y = " + c.py + "; y.backward(gy)";
      std::vector<std::string> outs = {"y"};
      for (auto& [n, t] : py_in) {
        if (n == "gy") continue;
        py += "; g" + n + " = " + n + ".grad";
        outs.push_back("g" + n);
      }
      auto r = torch_run(py, py_in, outs);
      const std::string ctx = c.name + (noncontig ? " non-contiguous" : "");
      expect_close(y.detach(), r.at("y"), 1e-12, 1e-12, ctx);
      for (size_t i = 0; i < in.size(); ++i) {
        const std::string n = addmm_case ? (i == 0 ? "c" : i == 1 ? "a" : "b") : names[i];
        ASSERT_TRUE(in[i].grad().defined()) << ctx << " input " << n;
        expect_close(in[i].grad(), r.at("g" + n), 1e-12, 1e-12, ctx + " grad " + n);
      }
    }
  }
}

TEST(LinalgGrad, OnlyRequestedInputsGetGradients) {
  Tensor a = et::make_input({3, 4}, kFloat, 50).requires_grad_();
  Tensor b = et::make_input({4, 2}, kFloat, 51);
  mm(a, b).sum().backward();
  EXPECT_TRUE(a.grad().defined());
  EXPECT_FALSE(b.grad().defined());
  expect_close(a.grad(), ones({3, 2}).mm(b.t()), 1e-6, 1e-6);
}

// A Linear layer multiplies by weight.t(): the weight's gradient must arrive in the weight's own
// (row-major) layout, or accumulating it into .grad is a strided transpose copy that cost more
// than the layer's GEMMs (PyTorch forms such products transposed for the same reason).
TEST(LinalgGrad, GradientsOfTransposedOperandsArriveInTheirLayout) {
  for (const Device& dev : et::test_devices()) {
    Tensor x = et::make_input({6, 4}, kDouble, 60).to(dev).requires_grad_();
    Tensor w = et::make_input({5, 4}, kDouble, 61).to(dev).requires_grad_();
    Tensor bias = et::make_input({5}, kDouble, 62).to(dev).requires_grad_();
    Tensor xt = et::make_input({4, 6}, kDouble, 63).to(dev).requires_grad_();
    Tensor gy = et::make_input({6, 5}, kDouble, 64).to(dev);
    const std::string ctx = dev.str();
    // addmm (Linear), mm with the transposed weight, and mm with a transposed left operand.
    const std::vector<std::pair<Tensor, Tensor>> products = {
        {addmm(bias, x, w.t()), x}, {mm(x, w.t()), x}, {mm(xt.t(), w.t()), xt.t()}};
    for (const auto& [y, left] : products) {
      auto g = autograd::grad({y}, {w}, {gy});
      EXPECT_TRUE(g[0].is_contiguous()) << ctx << " strides " << g[0].strides();
      expect_close(g[0].cpu(), gy.cpu().t().mm(left.detach().cpu()), 1e-12, 1e-12, ctx);
    }
    auto gxt = autograd::grad({mm(xt.t(), w.t())}, {xt}, {gy});
    EXPECT_TRUE(gxt[0].is_contiguous()) << ctx << " strides " << gxt[0].strides();
    expect_close(gxt[0].cpu(), w.detach().cpu().t().mm(gy.cpu().t()), 1e-12, 1e-12, ctx);
    // Values as PyTorch's, transposed operands included.
    auto r = torch_run("y = torch.mm(xt.t(), w.t()); y.backward(gy); gw = w.grad; gxt = xt.grad",
                       {{"xt", xt.detach().cpu().requires_grad_()},
                        {"w", w.detach().cpu().requires_grad_()},
                        {"gy", gy.cpu()}},
                       {"gw", "gxt"});
    mm(xt.t(), w.t()).backward(gy);
    expect_close(w.grad().cpu(), r.at("gw"), 1e-12, 1e-12, ctx + " gw");
    expect_close(xt.grad().cpu(), r.at("gxt"), 1e-12, 1e-12, ctx + " gxt");
  }
}
