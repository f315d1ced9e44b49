// Reductions, softmax and norms against PyTorch: values for contiguous and non-contiguous inputs
// in several dtypes, keepdim, gradients, and the errors for bad dims and dtypes.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

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

// Three layouts of the same values: contiguous, last two dims transposed in memory, and a
// strided slice of a larger tensor.
std::vector<std::pair<std::string, Tensor>> layouts(const Tensor& t) {
  std::vector<std::pair<std::string, Tensor>> out = {{"contiguous", t},
                                                     {"transposed", et::non_contiguous(t)}};
  if (t.dim() >= 1) {
    DimVector big(t.sizes());
    big[0] = big[0] * 2;
    Tensor wide = zeros(big, t.dtype());
    Tensor sl = wide.slice(0, 0, big[0], 2);
    sl.copy_(t);
    out.emplace_back("sliced", sl);
  }
  return out;
}

double tol_for(ScalarType t) {
  return t == kHalf ? 2e-3 : t == kBFloat16 ? 1e-2 : t == kFloat ? 1e-5 : 1e-12;
}

}  // namespace

TEST(Sum, DimsKeepdimDtypesAndLayouts) {
  for (ScalarType dt : {kFloat, kDouble, kLong, kInt, kBool, kHalf, kBFloat16}) {
    Tensor base = et::make_input({4, 5, 6}, dt, et::seed_for("sum") + static_cast<int>(dt));
    for (auto& [name, x] : layouts(base)) {
      const std::string ctx = std::string(to_string(dt)) + " " + name;
      auto r = torch_run(
          "y0 = x.sum(); y1 = x.sum(1); y2 = x.sum([0, 2], keepdim=True); y3 = x.sum(-1);"
          "y4 = x.sum([2, 0]); y5 = x.sum([0, 1, 2], keepdim=True)",
          {{"x", x}}, {"y0", "y1", "y2", "y3", "y4", "y5"});
      // PyTorch's CPU accumulates 16-bit multi-dim sums partly in 16 bits; ours accumulate in
      // float: compare with PyTorch loosely and with the exact float64 sum tightly.
      const double tol = dt == kHalf       ? 1e-2
                         : dt == kBFloat16 ? 4e-2
                                           : tol_for(is_integral(dt, true) ? kLong : dt);
      if (dt == kHalf || dt == kBFloat16) {
        const double exact_tol = dt == kHalf ? 1e-3 : 8e-3;
        expect_close(x.sum({0, 2}), x.to(kDouble).sum({0, 2}).to(dt), exact_tol, exact_tol,
                     ctx + " vs exact");
      }
      expect_close(x.sum(), r.at("y0"), tol, tol, ctx + " sum()");
      expect_close(x.sum({1}), r.at("y1"), tol, tol, ctx + " sum(1)");
      expect_close(x.sum({0, 2}, true), r.at("y2"), tol, tol, ctx + " sum([0,2], keepdim)");
      expect_close(ember::sum(x, {-1}), r.at("y3"), tol, tol, ctx + " sum(-1)");
      expect_close(x.sum({2, 0}), r.at("y4"), tol, tol, ctx + " sum([2,0])");
      expect_close(x.sum({0, 1, 2}, true), r.at("y5"), tol, tol, ctx + " sum(all, keepdim)");
    }
  }
}

TEST(Sum, IntegersWidenToInt64AndDtypeArgumentCasts) {
  EXPECT_EQ(et::make_input({3}, kInt, 1).sum().dtype(), kLong);
  EXPECT_EQ(et::make_input({3}, kByte, 1).sum().dtype(), kLong);
  EXPECT_EQ(et::make_input({3}, kBool, 1).sum({0}).dtype(), kLong);
  EXPECT_EQ(et::make_input({3}, kHalf, 1).sum().dtype(), kHalf);
  Tensor x = et::make_input({3, 4}, kFloat, 2);
  auto r = torch_run("y = x.sum(1, dtype=torch.float64); z = x.sum(dtype=torch.float64)",
                     {{"x", x}}, {"y", "z"});
  expect_close(x.sum({1}, false, kDouble), r.at("y"), 1e-12, 1e-12);
  expect_close(x.sum(kDouble), r.at("z"), 1e-12, 1e-12);
  // int32 values whose int32 sum would overflow.
  Tensor big = full({4}, 2000000000, kInt);
  EXPECT_EQ(big.sum().item<int64_t>(), 8000000000LL);
}

TEST(Sum, EmptyAndScalar) {
  Tensor e = zeros({0, 3});
  expect_close(e.sum(), tensor(0.0f), 0, 0);
  expect_close(e.sum({0}), zeros({3}), 0, 0);
  EXPECT_EQ(e.sum({1}).sizes(), IntArrayRef({0}));
  Tensor s = scalar_tensor(2.5);
  expect_close(s.sum(), s, 0, 0);
  expect_close(s.sum({0}), s, 0, 0);
  expect_close(e.prod(), tensor(1.0f), 0, 0);
}

TEST(Sum, Float32IsAccurateOver16MElements) {
  // 16M uniform values: a naive float32 running sum is off by ~1e-3 relative; PyTorch's cascade
  // sum and ours both stay within float tolerance of the exact value.
  manual_seed(123);
  Tensor x = rand({1 << 24});
  auto r = torch_run("y = x.sum(); z = x.double().sum()", {{"x", x}}, {"y", "z"});
  const double exact = r.at("z").item<double>();
  const double ours = x.sum().item<double>();
  EXPECT_NEAR(ours, exact, std::abs(exact) * 2e-6);
  expect_close(x.sum(), r.at("y"), 2e-6, 0);
  // The same data reduced along a long outer dim (column path) and a long inner dim.
  Tensor m = x.view({1 << 12, 1 << 12});
  auto rc =
      torch_run("y0 = m.sum(0); y1 = m.sum(1); y2 = m.t().sum(0)", {{"m", m}}, {"y0", "y1", "y2"});
  expect_close(m.sum({0}), rc.at("y0"), 1e-5, 1e-4);
  expect_close(m.sum({1}), rc.at("y1"), 1e-5, 1e-4);
  expect_close(m.t().sum({0}), rc.at("y2"), 1e-5, 1e-4);
}

TEST(Sum, LargeTensorsUseThreadsAndMatchPyTorch) {
  // Shapes that exercise: many outputs in parallel, few outputs with a long split reduction,
  // and wide columns reduced over a long outer dim.
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{512, 300}, {3, 200000}, {200000, 3}, {64, 70, 40}}) {
    Tensor x = et::make_input(shape, kFloat, 7);
    auto r = torch_run("y0 = x.sum(0); y1 = x.sum(-1); y2 = x.amax(0); y3 = x.sum()", {{"x", x}},
                       {"y0", "y1", "y2", "y3"});
    expect_close(x.sum({0}), r.at("y0"), 1e-5, 1e-4);
    expect_close(x.sum({-1}), r.at("y1"), 1e-5, 1e-4);
    expect_close(x.amax({0}), r.at("y2"), 0, 0);
    expect_close(x.sum(), r.at("y3"), 1e-5, 1e-3);
  }
}

// Long rows into few outputs take the split path on CUDA (partials per block, then a combine);
// every reduce op and a strided (outer-dim) row must still equal the CPU's result.
TEST(Sum, LongRowsIntoFewOutputsOnEveryDevice) {
  Tensor x = et::make_input({3, 70000}, kFloat, 41);
  Tensor xt = x.t().contiguous().t();  // rows with stride 3
  Tensor ints = et::make_input({2, 50000}, kInt, 42);
  Tensor b = x > 2.5;
  for (Device d : et::test_devices()) {
    const std::string on = " on " + d.str();
    expect_close(x.to(d).sum(1).cpu(), x.sum(1), 1e-5, 1e-3, "sum(1)" + on);
    expect_close(xt.to(d).sum(1).cpu(), x.sum(1), 1e-5, 1e-3, "strided sum(1)" + on);
    expect_close(x.to(d).sum().cpu(), x.sum(), 1e-5, 1e-2, "sum()" + on);
    expect_close(x.to(d).mean(1).cpu(), x.mean(1), 1e-5, 1e-6, "mean(1)" + on);
    EXPECT_TRUE(equal(x.to(d).amax(1).cpu(), x.amax(1))) << on;
    EXPECT_TRUE(equal(x.to(d).amin(1).cpu(), x.amin(1))) << on;
    EXPECT_TRUE(equal(ints.to(d).sum(1).cpu(), ints.sum(1))) << on;  // exact, int64
    EXPECT_TRUE(equal(b.to(d).any().cpu(), b.any())) << on;
    EXPECT_TRUE(equal(b.to(d).all().cpu(), b.all())) << on;
    // float products of 2e5 factors drift by 1e-3 in any order: compare in float64.
    Tensor near_one = (x * 1e-6 + 1).to(kDouble);
    expect_close(near_one.to(d).prod().cpu(), near_one.prod(), 1e-10, 0, "prod()" + on);
  }
}

TEST(Mean, ValuesAndErrors) {
  for (ScalarType dt : {kFloat, kDouble, kBFloat16, kHalf}) {
    for (auto& [name, x] : layouts(et::make_input({4, 6}, dt, 11))) {
      auto r = torch_run("y0 = x.mean(); y1 = x.mean(0); y2 = x.mean([1], keepdim=True)",
                         {{"x", x}}, {"y0", "y1", "y2"});
      const double tol = tol_for(dt);
      expect_close(x.mean(), r.at("y0"), tol, tol, name);
      expect_close(x.mean({0}), r.at("y1"), tol, tol, name);
      expect_close(x.mean({1}, true), r.at("y2"), tol, tol, name);
    }
  }
  Tensor i = tensor({1, 2, 3});
  const std::string msg = error_of<TypeError>([&] { i.mean(); });
  EXPECT_TRUE(contains(msg, "mean()") && contains(msg, "Long")) << msg;
  expect_close(i.mean(kDouble), tensor(2.0, kDouble), 0, 0);
}

TEST(Prod, ValuesAndIntegerWidening) {
  Tensor x = et::make_input({3, 4}, kDouble, 5);
  auto r = torch_run("y = x.prod()", {{"x", x}});
  expect_close(x.prod(), r.at("y"), 1e-12, 0);
  Tensor i = tensor({2, 3, 4}, kInt);
  EXPECT_EQ(i.prod().dtype(), kLong);
  EXPECT_EQ(i.prod().item<int64_t>(), 24);
  EXPECT_EQ(tensor({true, true}).prod().item<int64_t>(), 1);
}

TEST(MaxMin, AllDimsAndAmaxAmin) {
  for (ScalarType dt : {kFloat, kDouble, kLong, kInt, kBFloat16, kHalf, kBool}) {
    for (auto& [name, x] : layouts(et::make_input({5, 4, 3}, dt, 21 + static_cast<int>(dt)))) {
      const std::string ctx = std::string(to_string(dt)) + " " + name;
      auto r = torch_run(
          "y0 = x.max(); y1 = x.min(); y2 = x.amax([0, 2]); y3 = x.amin(1, keepdim=True);"
          "y4 = x.amax()",
          {{"x", x}}, {"y0", "y1", "y2", "y3", "y4"});
      expect_close(x.max(), r.at("y0"), 0, 0, ctx);
      expect_close(x.min(), r.at("y1"), 0, 0, ctx);
      expect_close(x.amax({0, 2}), r.at("y2"), 0, 0, ctx);
      expect_close(x.amin({1}, true), r.at("y3"), 0, 0, ctx);
      expect_close(x.amax(), r.at("y4"), 0, 0, ctx);
    }
  }
}

TEST(MaxMin, AlongDimReturnsValuesAndFirstIndices) {
  for (ScalarType dt : {kFloat, kDouble, kLong, kBFloat16}) {
    // Small integers produce ties: the first index must win, as in PyTorch.
    et::InputSpec spec{{6, 7, 5}, dt, et::Domain::SmallInt};
    for (auto& [name, x] : layouts(et::make_input(spec, 31))) {
      const std::string ctx = std::string(to_string(dt)) + " " + name;
      for (int64_t d : {0, 1, 2, -1}) {
        auto r =
            torch_run("v, i = x.max(" + std::to_string(d) + "); w, j = x.min(" + std::to_string(d) +
                          ", keepdim=True); a = x.argmax(" + std::to_string(d) +
                          "); b = x.argmin(" + std::to_string(d) + ", keepdim=True)",
                      {{"x", x}}, {"v", "i", "w", "j", "a", "b"});
        auto [v, i] = x.max(d);
        auto [w, j] = ember::min(x, d, true);
        expect_close(v, r.at("v"), 0, 0, ctx);
        expect_close(i, r.at("i"), 0, 0, ctx);
        expect_close(w, r.at("w"), 0, 0, ctx);
        expect_close(j, r.at("j"), 0, 0, ctx);
        expect_close(x.argmax(d), r.at("a"), 0, 0, ctx);
        expect_close(x.argmin(d, true), r.at("b"), 0, 0, ctx);
      }
      auto r = torch_run("a = x.argmax(); b = x.argmin(keepdim=True)", {{"x", x}}, {"a", "b"});
      expect_close(x.argmax(), r.at("a"), 0, 0, ctx);
      expect_close(x.argmin(std::nullopt, true), r.at("b"), 0, 0, ctx);
    }
  }
}

TEST(MaxMin, NaNWins) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = tensor({{1.0, nan, 3.0, nan}, {4.0, 2.0, 0.5, 1.0}});
  auto r =
      torch_run("v, i = x.max(1); w, j = x.min(1); y0 = x.max(); y1 = x.amax(0); a = x.argmax(1)",
                {{"x", x}}, {"v", "i", "w", "j", "y0", "y1", "a"});
  auto [v, i] = x.max(1);
  auto [w, j] = x.min(1);
  expect_close(v, r.at("v"), 0, 0);
  expect_close(i, r.at("i"), 0, 0);
  expect_close(w, r.at("w"), 0, 0);
  expect_close(j, r.at("j"), 0, 0);
  expect_close(x.max(), r.at("y0"), 0, 0);
  expect_close(x.amax({0}), r.at("y1"), 0, 0);
  expect_close(x.argmax(1), r.at("a"), 0, 0);
}

TEST(VarStd, UnbiasedAndBiased) {
  for (ScalarType dt : {kFloat, kDouble}) {
    for (auto& [name, x] : layouts(et::make_input({5, 6, 4}, dt, 41))) {
      auto r = torch_run(
          "y0 = x.var([1]); y1 = x.std([0, 2], unbiased=False, keepdim=True); y2 = x.var([]);"
          "y3 = x.std([-1])",
          {{"x", x}}, {"y0", "y1", "y2", "y3"});
      const double tol = tol_for(dt) * 10;
      expect_close(x.var({1}), r.at("y0"), tol, tol, name);
      expect_close(x.std({0, 2}, false, true), r.at("y1"), tol, tol, name);
      expect_close(x.var({}), r.at("y2"), tol, tol, name);
      expect_close(ember::std(x, {-1}), r.at("y3"), tol, tol, name);
    }
  }
  const std::string msg = error_of<TypeError>([] { tensor({1, 2}).var({0}); });
  EXPECT_TRUE(contains(msg, "var") && contains(msg, "Long")) << msg;
}

TEST(LogSumExp, StableForLargeAndInfiniteValues) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = tensor({{1000.0, 1000.0, -5.0}, {-inf, -inf, -inf}, {inf, 1.0, 2.0}}, kDouble);
  auto r = torch_run("y0 = torch.logsumexp(x, [1]); y1 = torch.logsumexp(x, [0], keepdim=True)",
                     {{"x", x}}, {"y0", "y1"});
  expect_close(logsumexp(x, {1}), r.at("y0"), 1e-12, 1e-12);
  expect_close(logsumexp(x, {0}, true), r.at("y1"), 1e-12, 1e-12);
  Tensor y = et::make_input({4, 5}, kFloat, 3);
  auto r2 = torch_run("y = torch.logsumexp(x, [0, 1])", {{"x", et::non_contiguous(y)}});
  expect_close(logsumexp(et::non_contiguous(y), {0, 1}), r2.at("y"), 1e-5, 1e-5);
  EXPECT_EQ(logsumexp(tensor({1, 2}), {0}).dtype(), kFloat);
}

TEST(AllAny, DtypesAndUint8Result) {
  for (ScalarType dt : {kBool, kFloat, kLong, kByte}) {
    Tensor x = et::make_input({4, 5}, dt, 51);
    auto r = torch_run("y0 = x.all(); y1 = x.any(); y2 = (x * 0).any(); y3 = (x * 0 + 1).all()",
                       {{"x", x}}, {"y0", "y1", "y2", "y3"});
    expect_close(x.all(), r.at("y0"), 0, 0, to_string(dt));
    expect_close(x.any(), r.at("y1"), 0, 0, to_string(dt));
    expect_close((x * 0).any(), r.at("y2"), 0, 0, to_string(dt));
    expect_close((x * 0 + 1).all(), r.at("y3"), 0, 0, to_string(dt));
  }
  EXPECT_EQ(tensor({1, 2}, kByte).all().dtype(), kByte);
  EXPECT_TRUE(zeros({0}).all().item<bool>());
  EXPECT_FALSE(zeros({0}).any().item<bool>());
}

TEST(AllcloseEqual, Semantics) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor a = tensor({1.0, 2.0, inf, nan});
  Tensor b = tensor({1.0 + 1e-9, 2.0, inf, nan});
  EXPECT_FALSE(allclose(a, b));
  EXPECT_TRUE(allclose(a, b, 1e-5, 1e-8, /*equal_nan=*/true));
  EXPECT_FALSE(allclose(tensor({1.0}), tensor({1.1})));
  EXPECT_TRUE(allclose(tensor({1.0}), tensor({1.1}), 0.1, 0.0));
  EXPECT_TRUE(tensor({1.0, 2.0}).allclose(tensor({{1.0, 2.0}, {1.0, 2.0}})));  // broadcasts
  EXPECT_TRUE(allclose(tensor({1, 2}), tensor({1, 2})));
  const std::string msg = error_of<TypeError>([] { allclose(ones({2}), ones({2}, kDouble)); });
  EXPECT_TRUE(contains(msg, "Float") && contains(msg, "Double")) << msg;

  EXPECT_TRUE(equal(tensor({1, 2}), tensor({1, 2})));
  EXPECT_FALSE(equal(tensor({1, 2}), tensor({1, 3})));
  EXPECT_FALSE(equal(tensor({1, 2}), tensor({{1, 2}})));
  EXPECT_FALSE(equal(tensor({nan}), tensor({nan})));
  Tensor x = et::make_input({3, 4}, kFloat, 9);
  EXPECT_TRUE(equal(et::non_contiguous(x), x));
}

TEST(Norm, PNorms) {
  Tensor x = et::make_input({4, 5}, kFloat, 61);
  auto r = torch_run(
      "y0 = x.norm(); y1 = x.norm(1); y2 = x.norm(3); y3 = x.norm(float('inf')); y4 = x.norm(0)",
      {{"x", et::non_contiguous(x)}}, {"y0", "y1", "y2", "y3", "y4"});
  Tensor nx = et::non_contiguous(x);
  expect_close(nx.norm(), r.at("y0"), 1e-5, 1e-6);
  expect_close(nx.norm(1), r.at("y1"), 1e-5, 1e-6);
  expect_close(nx.norm(3), r.at("y2"), 1e-5, 1e-6);
  expect_close(nx.norm(std::numeric_limits<double>::infinity()), r.at("y3"), 0, 0);
  expect_close(nx.norm(0), r.at("y4"), 0, 0);
  // A RuntimeError in Python, as PyTorch raises.
  const std::string msg = error_of<ValueError>([] { tensor({1, 2}).norm(); });
  EXPECT_TRUE(contains(msg, "norm()") && contains(msg, "Long")) << msg;
}

TEST(Softmax, ValuesLayoutsAndDtypes) {
  for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
    for (auto& [name, x] : layouts(et::make_input({3, 4, 5}, dt, 71))) {
      const std::string ctx = std::string(to_string(dt)) + " " + name;
      auto r = torch_run(
          "y0 = x.softmax(1); y1 = x.log_softmax(-1); y2 = torch.softmax(x, 0, "
          "dtype=torch.float64); y3 = x.log_softmax(0)",
          {{"x", x}}, {"y0", "y1", "y2", "y3"});
      const double tol = tol_for(dt) * 2;
      expect_close(x.softmax(1), r.at("y0"), tol, tol, ctx);
      expect_close(x.log_softmax(-1), r.at("y1"), tol, tol, ctx);
      expect_close(softmax(x, 0, kDouble), r.at("y2"), 1e-12, 1e-12, ctx);
      expect_close(log_softmax(x, 0), r.at("y3"), tol, tol, ctx);
    }
  }
  // Large logits do not overflow.
  Tensor big = tensor({{1000.0f, 0.0f, -1000.0f}});
  auto r = torch_run("y0 = x.softmax(1); y1 = x.log_softmax(1)", {{"x", big}}, {"y0", "y1"});
  expect_close(big.softmax(1), r.at("y0"), 1e-6, 1e-7);
  expect_close(big.log_softmax(1), r.at("y1"), 1e-6, 1e-6);
  // Half is computed in float (PyTorch 1.13 has no CPU half softmax to compare with).
  Tensor h = et::make_input({3, 6}, kHalf, 72);
  expect_close(h.softmax(1), h.to(kFloat).softmax(1).to(kHalf), 1e-3, 1e-3);
  const std::string msg = error_of<TypeError>([] { tensor({1, 2}).softmax(0); });
  EXPECT_TRUE(contains(msg, "softmax") && contains(msg, "Long")) << msg;
  EXPECT_TRUE(contains(error_of<IndexError>([&] { big.softmax(2); }), "Dimension out of range"));
}

TEST(ReduceErrors, ClearMessages) {
  Tensor x = ones({2, 3});
  std::string msg = error_of<ValueError>([&] { x.sum({1, -1}); });
  EXPECT_TRUE(contains(msg, "dim 1 appears multiple times")) << msg;
  msg = error_of<IndexError>([&] { x.sum({2}); });
  EXPECT_TRUE(contains(msg, "Dimension out of range") && contains(msg, "got 2")) << msg;
  msg = error_of<IndexError>([] { zeros({0}).max(); });
  EXPECT_TRUE(contains(msg, "max()") && contains(msg, "numel() == 0")) << msg;
  msg = error_of<IndexError>([] { zeros({0, 3}).amax({0}); });
  EXPECT_TRUE(contains(msg, "amax()") && contains(msg, "dim 0")) << msg;
  msg = error_of<IndexError>([] { zeros({0, 3}).max(0); });
  EXPECT_TRUE(contains(msg, "max()") && contains(msg, "dim 0")) << msg;
  msg = error_of<IndexError>([] { zeros({0, 3}).argmax(); });
  EXPECT_TRUE(contains(msg, "argmax()")) << msg;
  EXPECT_EQ(zeros({0, 3}).amax({1}).sizes(), IntArrayRef({0}));
  // The process keeps working after errors.
  EXPECT_EQ(x.sum().item<float>(), 6.0f);
}

// ---- gradients ----

TEST(ReduceGrad, MatchesPyTorch) {
  struct Case {
    std::string name;
    std::function<Tensor(const Tensor&)> f;
    std::string py;
  };
  const std::vector<Case> cases = {
      {"sum", [](const Tensor& x) { return x.sum(); }, "x.sum()"},
      {"sum_dims",
       [](const Tensor& x) {
         return x.sum({0, 2});
       },
       "x.sum([0, 2])"},
      {"sum_keepdim", [](const Tensor& x) { return x.sum({1}, true); }, "x.sum(1, keepdim=True)"},
      {"sum_dtype", [](const Tensor& x) { return x.sum({1}, false, kDouble); },
       "x.sum(1, dtype=torch.float64)"},
      {"mean", [](const Tensor& x) { return x.mean({-1}); }, "x.mean(-1)"},
      {"mean_all", [](const Tensor& x) { return x.mean(); }, "x.mean()"},
      {"prod", [](const Tensor& x) { return x.prod(); }, "x.prod()"},
      {"amax", [](const Tensor& x) { return x.amax({1}); }, "x.amax(1)"},
      {"amin_keep",
       [](const Tensor& x) {
         return x.amin({0, 2}, true);
       },
       "x.amin([0, 2], keepdim=True)"},
      {"max_all", [](const Tensor& x) { return x.max(); }, "x.max()"},
      {"max_dim", [](const Tensor& x) { return std::get<0>(x.max(1)); }, "x.max(1)[0]"},
      {"min_dim_keep", [](const Tensor& x) { return std::get<0>(x.min(2, true)); },
       "x.min(2, keepdim=True)[0]"},
      {"var", [](const Tensor& x) { return x.var({1}); }, "x.var(1)"},
      {"std",
       [](const Tensor& x) {
         return x.std({0, 2}, false);
       },
       "x.std([0, 2], unbiased=False)"},
      {"logsumexp", [](const Tensor& x) { return logsumexp(x, {2}); }, "torch.logsumexp(x, 2)"},
      {"norm", [](const Tensor& x) { return x.norm(); }, "x.norm()"},
      {"softmax", [](const Tensor& x) { return x.softmax(1); }, "x.softmax(1)"},
      {"log_softmax", [](const Tensor& x) { return x.log_softmax(-1); }, "x.log_softmax(-1)"},
  };
  for (const Case& c : cases) {
    for (bool noncontig : {false, true}) {
      Tensor base = et::make_input({3, 4, 5}, kDouble, et::seed_for(c.name));
      Tensor x = (noncontig ? et::non_contiguous(base) : base.clone()).detach();
      x.requires_grad_();
      Tensor y = c.f(x);
      Tensor gy = et::make_input(y.sizes().vec(), kDouble, 99);
      y.backward(gy);
      auto r = torch_run("y = " + c.py + "; y.backward(gy); gx = x.grad",
                         {{"x", x.detach().requires_grad_()}, {"gy", gy}}, {"y", "gx"});
      const std::string ctx = c.name + (noncontig ? " non-contiguous" : "");
      expect_close(y.detach(), r.at("y"), 1e-10, 1e-10, ctx);
      ASSERT_TRUE(x.grad().defined()) << ctx;
      expect_close(x.grad(), r.at("gx"), 1e-9, 1e-10, ctx);
    }
  }
}

TEST(ReduceGrad, TiesZerosAndFloat32) {
  // Tied maxima share the gradient; prod with one zero and with two zeros.
  Tensor t = tensor({{1.0, 3.0, 3.0}, {2.0, 0.0, 2.0}}).requires_grad_();
  auto r = torch_run(
      "a = x.max(); a.backward(); g0 = x.grad.clone(); x.grad = None;"
      "b = x.amax(1); b.sum().backward(); g1 = x.grad.clone(); x.grad = None;"
      "c = x.prod(); c.backward(); g2 = x.grad.clone(); x.grad = None;"
      "z = x.clone(); d = (z * torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]])).prod();"
      "d.backward(); g3 = x.grad",
      {{"x", t}}, {"g0", "g1", "g2", "g3"});
  t.max().backward();
  expect_close(t.grad(), r.at("g0"), 0, 0, "max ties");
  t.mutable_grad() = Tensor();
  t.amax({1}).sum().backward();
  expect_close(t.grad(), r.at("g1"), 0, 0, "amax ties");
  t.mutable_grad() = Tensor();
  t.prod().backward();
  expect_close(t.grad(), r.at("g2"), 1e-12, 0, "prod one zero");
  t.mutable_grad() = Tensor();
  (t.clone() * tensor({{1.0, 1.0, 1.0}, {1.0, 0.0, 0.0}})).prod().backward();
  expect_close(t.grad(), r.at("g3"), 1e-12, 0, "prod two zeros");

  // Zero vector: the norm's gradient is 0, not NaN.
  Tensor z = zeros({3}).requires_grad_();
  z.norm().backward();
  expect_close(z.grad(), zeros({3}), 0, 0, "norm at zero");

  // float32 softmax gradient against finite differences.
  et::expect_gradients_match_finite_differences(
      [](const std::vector<Tensor>& in) { return in[0].log_softmax(1) * in[0].softmax(0); },
      {et::make_input({3, 4}, kFloat, 5)}, Device(kCPU), "softmax composite");
}
