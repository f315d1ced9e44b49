// masked_fill, flip, round, std()/var() without dims, einsum and randint's dtype against PyTorch
// 1.13 (and, for the overloads, against what libtorch 1.13's C++ declarations select): values,
// dtypes, gradients on every device, and bad input.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

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

TEST(MaskedFill, ScalarAndTensorValuesBroadcastDtypesAndGradients) {
  const Tensor x = et::make_input({3, 4}, kDouble, et::seed_for("masked_fill"));
  const Tensor m_row = et::make_input({{4}, kBool, et::Domain::Bool}, 1);
  const Tensor m_col = et::make_input({{3, 1}, kBool, et::Domain::Bool}, 2);
  const Tensor m_big = et::make_input({{2, 3, 4}, kBool, et::Domain::Bool}, 3);
  const Tensor xi = et::make_input({3, 4}, kInt, 4);
  const Tensor v = tensor(-1.5, kDouble);
  const Tensor g = et::make_input({3, 4}, kDouble, et::seed_for("masked_fill_g"));
  auto r = torch_run(
      "a = x.masked_fill(mr, 2.5); b = x.masked_fill(mc, float('nan'))\n"
      "c = x.masked_fill(mb, 7.0); d = xi.masked_fill(mr, 2.7)\n"
      "x.requires_grad_(True); v.requires_grad_(True)\n"
      "e = x.masked_fill(mc, v); e.backward(g); gx = x.grad; gv = v.grad\n"
      "f = x.detach().clone(); f.masked_fill_(mr, v.detach())",
      {{"x", x}, {"mr", m_row}, {"mc", m_col}, {"mb", m_big}, {"xi", xi}, {"v", v}, {"g", g}},
      {"a", "b", "c", "d", "e", "gx", "gv", "f"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor xd = x.to(dev), mr = m_row.to(dev), mc = m_col.to(dev);
    expect_close(xd.masked_fill(mr, 2.5).cpu(), r.at("a"), 0, 0, ctx + " row mask");
    expect_close(ember::masked_fill(xd, mc, std::numeric_limits<double>::quiet_NaN()).cpu(),
                 r.at("b"), 0, 0, ctx + " column mask, NaN");
    expect_close(xd.masked_fill(m_big.to(dev), 7.0).cpu(), r.at("c"), 0, 0,
                 ctx + " mask larger than self");
    Tensor d = xi.to(dev).masked_fill(mr, 2.7);
    EXPECT_EQ(d.dtype(), kInt) << ctx;
    expect_close(d.cpu(), r.at("d"), 0, 0, ctx + " int keeps dtype");

    Tensor xg = x.to(dev).detach().requires_grad_(),
           vg = v.clone().requires_grad_();  // value on the CPU
    Tensor e = xg.masked_fill(mc, vg);
    e.backward(g.to(dev));
    expect_close(e.detach().cpu(), r.at("e"), 0, 0, ctx + " tensor value");
    expect_close(xg.grad().cpu(), r.at("gx"), 0, 0, ctx + " grad self");
    expect_close(vg.grad().cpu(), r.at("gv"), 1e-12, 1e-12, ctx + " grad value");

    const Tensor f = xd.clone();  // in place on a const handle, as libtorch allows
    Tensor& same = f.masked_fill_(mr, v.detach());
    EXPECT_TRUE(same.is_same(f));
    expect_close(f.cpu(), r.at("f"), 0, 0, ctx + " masked_fill_");
  }
}

TEST(MaskedFill, InPlaceOnANonLeafCarriesTheGradient) {
  const Tensor x = et::make_input({2, 3}, kDouble, et::seed_for("masked_fill_"));
  const Tensor m = et::make_input({{2, 3}, kBool, et::Domain::Bool}, 9);
  auto r = torch_run(
      "x.requires_grad_(True); y = x * 3; y.masked_fill_(m, 1.0); (y * y).sum().backward(); "
      "gx = x.grad",
      {{"x", x}, {"m", m}}, {"y", "gx"});
  Tensor xg = x.clone().requires_grad_();
  Tensor y = xg * 3;
  y.masked_fill_(m, 1.0);
  (y * y).sum().backward();
  expect_close(y.detach(), r.at("y"), 0, 0, "values");
  expect_close(xg.grad(), r.at("gx"), 1e-12, 0, "gradient");
}

TEST(MaskedFill, BadInput) {
  Tensor x = ones({3, 4});
  std::string msg = error_of<TypeError>([&] { x.masked_fill(ones({4}), 1.0); });
  EXPECT_TRUE(contains(msg, "masked_fill only supports boolean masks") &&
              contains(msg, "torch.float32"))
      << msg;
  msg = error_of<TypeError>([&] { x.masked_fill_(ones({4}, kByte), 1.0); });
  EXPECT_TRUE(contains(msg, "masked_fill_") && contains(msg, "torch.uint8")) << msg;
  msg = error_of<ValueError>([&] { x.masked_fill(ones({4}, kBool), ones({1})); });
  EXPECT_TRUE(contains(msg, "0-dimensional value tensor") && contains(msg, "1 dimension(s)"))
      << msg;
  msg = error_of<ValueError>([&] { ones({1}).masked_fill_(ones({3}, kBool), 2.0); });
  EXPECT_TRUE(contains(msg, "output with shape [1] doesn't match the broadcast shape [3]")) << msg;
  msg = error_of<ValueError>([&] { x.masked_fill(ones({5}, kBool), 2.0); });
  EXPECT_TRUE(contains(msg, "[5]") && contains(msg, "[3, 4]")) << msg;
}

TEST(Flip, DimsNegativeEmptyAndGradient) {
  const Tensor x = et::make_input({2, 3, 4}, kDouble, et::seed_for("flip"));
  const Tensor g = et::make_input({2, 3, 4}, kDouble, et::seed_for("flip_g"));
  auto r = torch_run(
      "a = x.flip([0]); b = torch.flip(x, [-1, 1]); c = x.flip([]); "
      "x.requires_grad_(True); x.flip([2, 0]).backward(g); gx = x.grad",
      {{"x", x}, {"g", g}}, {"a", "b", "c", "gx"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor xd = et::non_contiguous(x.to(dev));
    expect_close(xd.flip({0}).cpu(), r.at("a"), 0, 0, ctx + " flip 0");
    expect_close(ember::flip(xd, {-1, 1}).cpu(), r.at("b"), 0, 0, ctx + " flip -1, 1");
    Tensor c = xd.flip({});
    EXPECT_FALSE(c.is_same(xd));
    expect_close(c.cpu(), r.at("c"), 0, 0, ctx + " flip []");
    Tensor xg = x.to(dev).detach().requires_grad_();
    xg.flip({2, 0}).backward(g.to(dev));
    expect_close(xg.grad().cpu(), r.at("gx"), 0, 0, ctx + " grad");
    EXPECT_EQ(tensor(4.0).to(dev).flip({0}).item<double>(), 4.0);
  }
  std::string msg = error_of<ValueError>([&] { x.flip({0, -3}); });
  EXPECT_TRUE(contains(msg, "dim 0 appears multiple times in the list of dims")) << msg;
  msg = error_of<IndexError>([&] { x.flip({3}); });
  EXPECT_TRUE(contains(msg, "flip") && contains(msg, "Dimension out of range") &&
              contains(msg, "got 3"))
      << msg;
}

TEST(Round, HalfToEvenDecimalsDtypesAndZeroGradient) {
  const Tensor x =
      tensor({0.5, 1.5, 2.5, -0.5, -1.5, 1.25, 1.35, -2.675, 1234.5678, 0.0449,
              std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()},
             kDouble);
  for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
    const Tensor xt = x.to(dt);
    // bfloat16 with decimals: scaled in float and rounded once, as PyTorch 2 does (1.13 rounded
    // x * 10^d to bfloat16 first); spelled through float, both versions agree on the expectation.
    auto r = torch_run(
        "w = x.float() if x.dtype == torch.bfloat16 else x; "
        "a = x.round(); b = torch.round(w, decimals=1).to(x.dtype); "
        "c = w.round(decimals=2).to(x.dtype); d = w.round(decimals=-2).to(x.dtype)",
        {{"x", xt}}, {"a", "b", "c", "d"});
    for (Device dev : et::test_devices()) {
      const std::string ctx = std::string(to_string(dt)) + " " + dev.str();
      const Tensor xd = xt.to(dev);
      expect_close(xd.round().cpu(), r.at("a"), 0, 0, ctx + " round()");
      expect_close(ember::round(xd, 1).cpu(), r.at("b"), 0, 0, ctx + " decimals=1");
      expect_close(xd.round(2).cpu(), r.at("c"), 0, 0, ctx + " decimals=2");
      expect_close(xd.round(-2).cpu(), r.at("d"), 0, 0, ctx + " decimals=-2");
    }
  }
  const Tensor i = tensor({-3, 4, 7}, kLong);
  expect_close(i.round(), i, 0, 0, "integers pass through");
  const Tensor h = tensor({0.5, 1.5, 2.5, -2.5}, kHalf);
  expect_close(h.round(), tensor({0.0, 2.0, 2.0, -2.0}, kHalf), 0, 0, "half");
  Tensor xg = x.clone().requires_grad_();
  (xg.round(1) * 3).sum().backward();
  expect_close(xg.grad(), zeros_like(x), 0, 0, "zero gradient");
  std::string msg = error_of<TypeError>([&] { i.round(1); });
  EXPECT_TRUE(contains(msg, "round(decimals=1)") && contains(msg, "torch.int64")) << msg;
}

// A bool tensor to a bool power stays bool (PyTorch 2; 1.13 refused it). Other powers of a bool
// tensor promote, and a bool exponent tensor is still refused.
TEST(Pow, BoolTensorToABoolPower) {
  const Tensor b = tensor({1, 0, 1}, kLong).to(kBool);
  for (Device dev : et::test_devices()) {
    const Tensor bd = b.to(dev);
    const Tensor t = pow(bd, true), f = bd.pow(false);
    EXPECT_EQ(t.dtype(), kBool);
    EXPECT_EQ(t.device(), dev);
    EXPECT_TRUE(equal(t.cpu(), b)) << dev.str();
    EXPECT_TRUE(equal(f.cpu(), ones({3}, kBool))) << dev.str();
    EXPECT_EQ(pow(bd, 2).dtype(), kLong);
    std::string msg = error_of<TypeError>([&] { (void)pow(bd, bd); });
    EXPECT_TRUE(contains(msg, "\"pow\" not implemented for 'Bool'")) << msg;
  }
}

TEST(StdVar, NoArgumentOverloadsAsLibtorch) {
  const Tensor x = et::make_input({3, 4}, kDouble, et::seed_for("stdvar"));
  auto r = torch_run(
      "a = x.var(); b = x.std(); c = torch.var(x, False); d = torch.std(x, unbiased=False); "
      "e = x.var(0); f = x.std([1]); x.requires_grad_(True); x.std().backward(); gx = x.grad",
      {{"x", x}}, {"a", "b", "c", "d", "e", "f", "gx"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor xd = x.to(dev);
    expect_close(xd.var().cpu(), r.at("a"), 1e-12, 0, ctx + " var()");
    expect_close(xd.std().cpu(), r.at("b"), 1e-12, 0, ctx + " std()");
    expect_close(ember::var(xd, false).cpu(), r.at("c"), 1e-12, 0, ctx + " var(false)");
    expect_close(ember::std(xd, false).cpu(), r.at("d"), 1e-12, 0, ctx + " std(false)");
    // libtorch 1.13 selects the dims overloads for x.var(0) and x.std({1}).
    expect_close(xd.var(0).cpu(), r.at("e"), 1e-12, 0, ctx + " var(0)");
    expect_close(xd.std({1}).cpu(), r.at("f"), 1e-12, 0, ctx + " std({1})");
    Tensor xg = x.to(dev).detach().requires_grad_();
    xg.std().backward();
    expect_close(xg.grad().cpu(), r.at("gx"), 1e-10, 0, ctx + " std() grad");
  }
  std::string msg = error_of<TypeError>([] { tensor({1, 2}).std(); });
  EXPECT_TRUE(contains(msg, "std") && contains(msg, "Long")) << msg;
}

TEST(StdVar, CorrectionOverloadsAndVarMeanAsLibtorch) {
  const Tensor x = et::make_input({3, 4, 2}, kDouble, et::seed_for("stdvar_correction"));
  auto r = torch_run(
      "a = torch.var(x, [1], correction=0); b = x.std(dim=None, correction=2)\n"
      "c = torch.var(x, [0, 2], correction=3, keepdim=True); d = torch.var(x, [1], correction=5)\n"
      "vm = torch.var_mean(x, [2]); sm = torch.std_mean(x, [0], unbiased=False, keepdim=True)\n"
      "v1, m1 = vm; s2, m2 = sm\n"
      "x.requires_grad_(True); torch.std(x, [1], correction=0).sum().backward(); gx = x.grad",
      {{"x", x}}, {"a", "b", "c", "d", "v1", "m1", "s2", "m2", "gx"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor xd = x.to(dev);
    const std::vector<int64_t> d1{1}, d02{0, 2};
    expect_close(ember::var(xd, IntArrayRef(d1), std::optional<int64_t>(0)).cpu(), r.at("a"), 1e-12,
                 0, ctx + " correction 0");
    expect_close(xd.std(std::nullopt, 2).cpu(), r.at("b"), 1e-12, 0, ctx + " all dims, 2");
    expect_close(xd.var(IntArrayRef(d02), std::optional<int64_t>(3), true).cpu(), r.at("c"), 1e-12,
                 0, ctx + " keepdim");
    // correction >= N divides by zero: inf, as PyTorch (with its warning).
    expect_close(ember::var(xd, IntArrayRef(d1), std::optional<int64_t>(5)).cpu(), r.at("d"), 0, 0,
                 ctx + " correction beyond N");
    auto [v1, m1] = ember::var_mean(xd, {2});
    expect_close(v1.cpu(), r.at("v1"), 1e-12, 0, ctx + " var_mean var");
    expect_close(m1.cpu(), r.at("m1"), 1e-12, 0, ctx + " var_mean mean");
    auto [s2, m2] = ember::std_mean(xd, {0}, false, true);
    expect_close(s2.cpu(), r.at("s2"), 1e-12, 0, ctx + " std_mean std");
    expect_close(m2.cpu(), r.at("m2"), 1e-12, 0, ctx + " std_mean mean");
    Tensor xg = x.to(dev).detach().requires_grad_();
    ember::std(xg, IntArrayRef(d1), std::optional<int64_t>(0)).sum().backward();
    expect_close(xg.grad().cpu(), r.at("gx"), 1e-10, 0, ctx + " grad");
  }
  std::string msg = error_of<TypeError>([] { tensor({1, 2}).var(std::nullopt, 0); });
  EXPECT_TRUE(contains(msg, "var") && contains(msg, "Long")) << msg;
}

TEST(Einsum, CommonFormsForwardAndBackward) {
  struct Case {
    std::string eq;
    std::vector<std::vector<int64_t>> shapes;
  };
  const std::vector<Case> cases = {
      {"ij,jk->ik", {{3, 4}, {4, 5}}},           // matmul
      {"ij,jk", {{3, 4}, {4, 5}}},               // implicit output
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}},  // batch matmul
      {"ij->ji", {{3, 4}}},                      // transpose
      {"ba", {{3, 4}}},                          // implicit transpose (alphabetical)
      {"ii", {{4, 4}}},                          // trace
      {"ii->i", {{4, 4}}},                       // diagonal
      {"bii->bi", {{2, 3, 3}}},                  // batched diagonal
      {"i,j->ij", {{3}, {4}}},                   // outer product
      {"i,i->", {{5}, {5}}},                     // dot
      {"ij->", {{3, 4}}},                        // sum
      {"ij->j", {{3, 4}}},                       // column sums
      {"ij,ij->ij", {{3, 4}, {3, 4}}},           // Hadamard
      {"ij,ij->i", {{3, 1}, {1, 4}}},            // broadcast size-1 dims
      {"...ij->...ji", {{2, 3, 4}}},             // ellipsis transpose
      {"b...i,b...i->b...", {{2, 3, 4}, {2, 1, 4}}},
      {"...ij,...jk", {{2, 3, 4}, {4, 5}}},            // broadcast batch under '...'
      {"bn,anm,bm->ba", {{2, 3}, {4, 3, 5}, {2, 5}}},  // bilinear, three operands
      {"Ab,bC->AC", {{3, 4}, {4, 2}}},                 // uppercase labels
      {" i j , j k -> i k ", {{2, 3}, {3, 2}}},        // spaces
      {"iij,jk->ik", {{3, 3, 4}, {4, 2}}},             // diagonal inside a contraction
  };
  for (const Case& c : cases) {
    std::map<std::string, Tensor> in;
    std::vector<std::string> names, grads;
    std::string args;
    for (size_t k = 0; k < c.shapes.size(); ++k) {
      const std::string n = "t" + std::to_string(k);
      in[n] = et::make_input({c.shapes[k], kDouble}, et::seed_for(c.eq) + k);
      names.push_back(n);
      grads.push_back("g" + n);
      args += (k ? ", " : "") + n;
    }
    std::string py = "for t in [" + args + "]: t.requires_grad_(True)\n" + "y = torch.einsum('" +
                     c.eq + "', " + args + ")\nyg = y.detach().clone()\n(y * (torch.arange(" +
                     "y.numel(), dtype=y.dtype).reshape(y.shape) + 1)).sum().backward()\n";
    for (size_t k = 0; k < names.size(); ++k) py += grads[k] + " = " + names[k] + ".grad\n";
    std::vector<std::string> outs = {"yg"};
    outs.insert(outs.end(), grads.begin(), grads.end());
    auto r = torch_run(py, in, outs);
    for (Device dev : et::test_devices()) {
      const std::string ctx = "'" + c.eq + "' on " + dev.str();
      std::vector<Tensor> ts;
      for (const auto& n : names) ts.push_back(in[n].to(dev).detach().requires_grad_());
      Tensor y = ember::einsum(c.eq, ts);
      expect_close(y.detach().cpu(), r.at("yg"), 1e-12, 1e-12, ctx);
      Tensor w = arange(y.numel(), TensorOptions(kDouble).device(dev)).reshape(y.sizes()) + 1;
      (y * w).sum().backward();
      for (size_t k = 0; k < ts.size(); ++k) {
        expect_close(ts[k].grad().cpu(), r.at(grads[k]), 1e-12, 1e-12,
                     ctx + " grad of operand " + std::to_string(k));
      }
    }
  }
}

TEST(Einsum, BadEquationsNameTheEquationAndTheOperand) {
  const Tensor a = ones({2, 3}), b = ones({4, 5}), v = ones({2});
  struct Bad {
    std::function<void()> f;
    std::vector<std::string> parts;
  };
  const std::vector<Bad> bad = {
      {[&] {
         einsum("ij,jk->ik", {a, b});
       },
       {"subscript j has size 4 for operand 1", "previously seen size 3", "ij,jk->ik"}},
      {[&] {
         einsum("ij,jk->ik", {v, a});
       },
       {"number of subscripts in the equation (2)", "number of dimensions (1) for operand 0",
        "ij,jk->ik"}},
      {[&] { einsum("i!", {v}); }, {"invalid subscript given at index 1", "i!", "[a-zA-Z]"}},
      {[&] { einsum("ii", {a}); },
       {"subscript i is repeated for operand 0", "sizes don't match, 3 != 2", "\"ii\""}},
      {[&] { einsum("i->j", {v}); },
       {"output subscript j does not appear in the equation for any input operand"}},
      {[&] { einsum("i->ii", {v}); }, {"output subscript i appears more than once"}},
      {[&] { einsum("i,i", {v}); }, {"fewer operands were provided", "i,i"}},
      {[&] {
         einsum("i", {v, v});
       },
       {"more operands were provided", "\"i\""}},
      {[&] { einsum("...ijk", {a}); },
       {"number of subscripts in the equation (3) is more than the number of dimensions (2)",
        "operand 0"}},
      {[&] { einsum("i.j", {a}); }, {"not part of an ellipsis", "index 1"}},
      {[&] {
         einsum("i,i", {v, ones({2}, kDouble)});
       },
       {"expected scalar type Float but found Double", "operand 1"}},
  };
  for (const Bad& c : bad) {
    const std::string msg = error_of([&] { c.f(); });
    for (const auto& p : c.parts)
      EXPECT_TRUE(contains(msg, p)) << "missing '" << p << "' in: " << msg;
  }
}

TEST(Randint, DtypeAsLibtorch) {
  // Checked against libtorch 1.13 (a program compiled against it): torch::randint(10, {3}) and
  // torch::randint(2, 10, {3}) are int64 (the options parameter defaults to at::kLong), but
  // options without a dtype -- torch::randint(10, {3}, torch::kCUDA), TensorOptions().device(d)
  // -- give float32 like every other factory; torch::randperm stays int64 either way.
  EXPECT_EQ(randint(10, {3}).dtype(), kLong);
  EXPECT_EQ(randint(2, 10, {3}).dtype(), kLong);
  EXPECT_EQ(randint(10, {3}, kInt).dtype(), kInt);
  EXPECT_EQ(randint(10, {3}, TensorOptions()).dtype(), kFloat);
  EXPECT_EQ(randint(1, 10, {3}, TensorOptions().requires_grad(false)).dtype(), kFloat);
  EXPECT_EQ(randperm(5, TensorOptions()).dtype(), kLong);
  for (Device dev : et::test_devices()) {
    Tensor a = randint(10, {1000}, dev);
    Tensor b = randint(-3, 4, {1000}, TensorOptions(kLong).device(dev));
    EXPECT_EQ(a.dtype(), kFloat) << dev;
    EXPECT_EQ(a.device(), dev);
    EXPECT_EQ(b.dtype(), kLong) << dev;
    EXPECT_EQ(a.min().item<double>(), 0);
    EXPECT_EQ(a.max().item<double>(), 9);
    EXPECT_TRUE(a.eq(a.round()).all().item<bool>()) << "whole numbers";
    EXPECT_EQ(b.min().item<int64_t>(), -3);
    EXPECT_EQ(b.max().item<int64_t>(), 3);
  }
}
