// tril/triu (and in place), diagonal, diag, trace, repeat, movedim, unflatten, split_with_sizes,
// argwhere, isinf and isfinite against PyTorch: values, dtypes and gradients on every device,
// views that share storage, and bad input. (The op table, tests/ops/op_info.h, has a row for each
// too, with finite-difference gradients, in the sweeps test_op_*.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/autograd.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::torch_run;
namespace et = ember::testing;

namespace {

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.impl()->storage().get() == b.impl()->storage().get();
}

// d(sum(f(x) * w))/dx on `dev` against PyTorch's `py` (which defines y from x).
void expect_grad_like_torch(const Tensor& x0, const std::function<Tensor(const Tensor&)>& f,
                            const std::string& py, Device dev) {
  Tensor x = x0.to(dev).detach();
  x.requires_grad_(true);
  Tensor y = f(x);
  Tensor w = et::make_input(y.sizes().vec(), y.dtype(), et::seed_for(py + "w"));
  (y * w.to(dev)).sum().backward();
  auto r = torch_run("x.requires_grad_(True)\n" + py + "\n(y * w).sum().backward()\ngx = x.grad",
                     {{"x", x0}, {"w", w}}, {"y", "gx"});
  expect_close(y.detach().cpu(), r.at("y"), 1e-6, 1e-6, dev.str() + " " + py);
  ASSERT_TRUE(x.grad().defined()) << py;
  expect_close(x.grad().cpu(), r.at("gx"), 1e-6, 1e-6, dev.str() + " grad " + py);
}

}  // namespace

TEST(Triangles, TrilTriuMatchPyTorchForOffsetsBatchesAndDtypes) {
  const Tensor x = et::make_input({2, 4, 5}, kDouble, et::seed_for("tri"));
  const Tensor xi = et::make_input({4, 3}, kInt, et::seed_for("tri_int"));
  const Tensor xb = et::make_input({{3, 3}, kBool, et::Domain::Bool}, 7);
  auto r = torch_run(
      "a = torch.tril(x); b = torch.tril(x, 2); c = torch.triu(x, -1); d = torch.triu(x, 9)\n"
      "e = torch.tril(xi, -1); f = torch.triu(xb)",
      {{"x", x}, {"xi", xi}, {"xb", xb}}, {"a", "b", "c", "d", "e", "f"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor xd = x.to(dev);
    expect_close(tril(xd).cpu(), r.at("a"), 0, 0, ctx + " tril");
    expect_close(xd.tril(2).cpu(), r.at("b"), 0, 0, ctx + " tril(2)");
    expect_close(triu(xd, -1).cpu(), r.at("c"), 0, 0, ctx + " triu(-1)");
    expect_close(xd.triu(9).cpu(), r.at("d"), 0, 0, ctx + " triu past the corner");
    expect_close(tril(xi.to(dev), -1).cpu(), r.at("e"), 0, 0, ctx + " int");
    expect_close(triu(xb.to(dev)).cpu(), r.at("f"), 0, 0, ctx + " bool");
    // In place: the same values, written into the tensor itself.
    Tensor in_place = xd.clone();
    Tensor& same = in_place.tril_(2);
    EXPECT_EQ(&same, &in_place);
    expect_close(in_place.cpu(), r.at("b"), 0, 0, ctx + " tril_");
    in_place = xd.clone();
    in_place.triu_(-1);
    expect_close(in_place.cpu(), r.at("c"), 0, 0, ctx + " triu_");
    expect_grad_like_torch(
        x, [](const Tensor& t) { return tril(t, 1); }, "y = torch.tril(x, 1)", dev);
    expect_grad_like_torch(
        x, [](const Tensor& t) { return t.triu(-2); }, "y = x.triu(-2)", dev);
  }
}

TEST(Triangles, FewerThanTwoDimsIsPyTorchsIndexError) {
  EXPECT_EQ(error_of<IndexError>([] { tril(ones({3})); }),
            "tril: Dimension out of range (expected to be in range of [-1, 0], but got -2)");
  EXPECT_EQ(error_of<IndexError>([] { ones({3}).triu_(); }),
            "triu: Dimension out of range (expected to be in range of [-1, 0], but got -2)");
  Tensor leaf = ones({2, 2}).requires_grad_(true);
  EXPECT_NE(error_of([&] { leaf.tril_(); }), "<no exception>");  // a leaf that requires grad
}

TEST(Diagonal, IsAViewOfAnyTwoDimsAndMatchesPyTorch) {
  const Tensor x = et::make_input({3, 4, 5}, kDouble, et::seed_for("diagonal"));
  auto r = torch_run(
      "a = torch.diagonal(x); b = x.diagonal(2, 1, 2); c = x.diagonal(-1, 2, 0)\n"
      "d = x.diagonal(7, 1, 2); m = x[0].diagonal(-2)",
      {{"x", x}}, {"a", "b", "c", "d", "m"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor xd = x.to(dev);
    Tensor a = diagonal(xd);
    EXPECT_TRUE(shares_storage(a, xd)) << ctx;
    expect_close(a.cpu(), r.at("a"), 0, 0, ctx + " main diagonal of dims 0, 1");
    expect_close(xd.diagonal(2, 1, 2).cpu(), r.at("b"), 0, 0, ctx + " offset 2 of dims 1, 2");
    expect_close(xd.diagonal(-1, 2, 0).cpu(), r.at("c"), 0, 0, ctx + " offset -1 of dims 2, 0");
    expect_close(xd.diagonal(7, 1, 2).cpu(), r.at("d"), 0, 0, ctx + " past the corner: empty");
    expect_close(xd[0].diagonal(-2).cpu(), r.at("m"), 0, 0, ctx + " below, of a matrix");
    // Writes through the view reach the base, as in PyTorch.
    Tensor base = zeros({3, 3}, TensorOptions(kFloat).device(dev));
    base.diagonal().fill_(5);
    EXPECT_EQ(base.sum().item<double>(), 15.0) << ctx;
    expect_grad_like_torch(
        x, [](const Tensor& t) { return t.diagonal(1, 2, 0); }, "y = x.diagonal(1, 2, 0)", dev);
  }
  EXPECT_EQ(error_of<IndexError>([] { diagonal(ones({3})); }),
            "diagonal: Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  EXPECT_EQ(error_of<ValueError>([] {
              diagonal(ones({2, 3}), 0, 1, -1);
            }),
            "diagonal dimensions cannot be identical 1, -1");
}

TEST(Diag, VectorToMatrixAndMatrixToACopyOfItsDiagonal) {
  const Tensor v = et::make_input({4}, kDouble, et::seed_for("diag_v"));
  const Tensor m = et::make_input({3, 5}, kDouble, et::seed_for("diag_m"));
  const Tensor vi = et::make_input({3}, kLong, et::seed_for("diag_vi"));
  auto r = torch_run(
      "a = torch.diag(v); b = torch.diag(v, 2); c = torch.diag(v, -1); d = torch.diag(m, 1)\n"
      "e = torch.diag(vi, -2); t = torch.trace(m); ti = torch.trace(vi.reshape(1, 3))",
      {{"v", v}, {"m", m}, {"vi", vi}}, {"a", "b", "c", "d", "e", "t", "ti"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    expect_close(diag(v.to(dev)).cpu(), r.at("a"), 0, 0, ctx + " diag(v)");
    expect_close(v.to(dev).diag(2).cpu(), r.at("b"), 0, 0, ctx + " diag(v, 2)");
    expect_close(diag(v.to(dev), -1).cpu(), r.at("c"), 0, 0, ctx + " diag(v, -1)");
    Tensor md = m.to(dev);
    Tensor d = diag(md, 1);
    expect_close(d.cpu(), r.at("d"), 0, 0, ctx + " diag(m, 1)");
    EXPECT_FALSE(shares_storage(d, md)) << ctx << ": diag of a matrix is a copy, as in PyTorch";
    expect_close(diag(vi.to(dev), -2).cpu(), r.at("e"), 0, 0, ctx + " int64 vector");
    expect_close(trace(md).cpu(), r.at("t"), 1e-12, 1e-12, ctx + " trace");
    Tensor ti = vi.to(dev).reshape({1, 3}).trace();
    EXPECT_EQ(ti.dtype(), kLong) << ctx;
    expect_close(ti.cpu(), r.at("ti"), 0, 0, ctx + " int trace");
    expect_grad_like_torch(
        v, [](const Tensor& t) { return diag(t, -2); }, "y = torch.diag(x, -2)", dev);
    expect_grad_like_torch(
        m, [](const Tensor& t) { return t.diag(-1); }, "y = x.diag(-1)", dev);
    expect_grad_like_torch(
        m, [](const Tensor& t) { return trace(t); }, "y = torch.trace(x)", dev);
  }
  EXPECT_EQ(error_of<ValueError>([] {
              diag(ones({2, 2, 2}));
            }),
            "diag: matrix or a vector expected, got a 3-D tensor (sizes [2, 2, 2])");
  EXPECT_EQ(error_of<ValueError>([] { trace(ones({3})); }),
            "trace: expected a matrix, but got tensor with dim 1");
}

TEST(Repeat, TilesWithLeadingDimsAndSumsTheGradientBack) {
  const Tensor x = et::make_input({2, 3}, kDouble, et::seed_for("repeat"));
  auto r = torch_run("a = x.repeat(2, 1); b = x.repeat(3, 1, 2); c = x.repeat(0, 2)", {{"x", x}},
                     {"a", "b", "c"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor xd = x.to(dev);
    expect_close(xd.repeat({2, 1}).cpu(), r.at("a"), 0, 0, ctx + " repeat(2, 1)");
    expect_close(xd.repeat({3, 1, 2}).cpu(), r.at("b"), 0, 0, ctx + " a leading dim");
    expect_close(xd.repeat({0, 2}).cpu(), r.at("c"), 0, 0, ctx + " zero times");
    expect_grad_like_torch(
        x,
        [](const Tensor& t) {
          return t.repeat({2, 2, 3});
        },
        "y = x.repeat(2, 2, 3)", dev);
  }
  EXPECT_EQ(error_of<ValueError>([&] { x.repeat({2}); }),
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
            "tensor (repeat dims [2], tensor sizes [2, 3])");
  EXPECT_EQ(error_of<ValueError>([&] {
              x.repeat({2, -1});
            }),
            "Trying to create tensor with negative dimension -1: [2, -1]");
}

TEST(Movedim, MovesNamedDimsAndKeepsTheOthersInOrder) {
  const Tensor x = et::make_input({2, 3, 4, 5}, kFloat, et::seed_for("movedim"));
  auto r =
      torch_run("a = torch.movedim(x, 0, 3); b = x.movedim((0, 1), (2, 0)); c = x.movedim(-1, 0)",
                {{"x", x}}, {"a", "b", "c"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor xd = x.to(dev);
    Tensor a = movedim(xd, 0, 3);
    EXPECT_TRUE(shares_storage(a, xd)) << ctx;
    expect_close(a.cpu(), r.at("a"), 0, 0, ctx + " one dim");
    expect_close(xd.movedim({0, 1}, {2, 0}).cpu(), r.at("b"), 0, 0, ctx + " two dims");
    expect_close(xd.movedim(-1, 0).cpu(), r.at("c"), 0, 0, ctx + " negative");
  }
  const Tensor y = ones({2, 3});
  EXPECT_EQ(error_of<ValueError>([&] {
              y.movedim({0, 0}, {0, 1});
            }),
            "movedim: repeated dim in `source` ([0, 0])");
  EXPECT_EQ(error_of<ValueError>([&] {
              y.movedim({0, 1}, {1, 1});
            }),
            "movedim: repeated dim in `destination` ([1, 1])");
  EXPECT_EQ(error_of<ValueError>([&] {
              y.movedim(IntArrayRef{0}, IntArrayRef{0, 1});
            }),
            "movedim: Invalid source or destination dims: source ([0] dims) should contain the "
            "same number of dims as destination ([0, 1] dims)");
  EXPECT_EQ(error_of<IndexError>([&] { y.movedim(2, 0); }),
            "movedim: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(Unflatten, SplitsADimIntoSizesWithOneInferred) {
  const Tensor x = et::make_input({3, 12}, kDouble, et::seed_for("unflatten"));
  auto r = torch_run("a = x.unflatten(1, (2, -1, 3)); b = torch.unflatten(x, 0, (3, 1))",
                     {{"x", x}}, {"a", "b"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor xd = x.to(dev);
    Tensor a = xd.unflatten(1, {2, -1, 3});
    EXPECT_TRUE(shares_storage(a, xd)) << ctx;
    expect_close(a.cpu(), r.at("a"), 0, 0, ctx + " with -1");
    expect_close(unflatten(xd, 0, {3, 1}).cpu(), r.at("b"), 0, 0, ctx);
    expect_grad_like_torch(
        x,
        [](const Tensor& t) {
          return t.unflatten(-1, {4, 3});
        },
        "y = x.unflatten(-1, (4, 3))", dev);
  }
  EXPECT_EQ(error_of<ValueError>([] {
              ones({6}).unflatten(0, {4, 2});
            }),
            "unflatten: Provided sizes [4, 2] don't multiply up to the size of dim 0 (6) in the "
            "input tensor");
  EXPECT_EQ(error_of<ValueError>([] { ones({6}).unflatten(0, {}); }),
            "unflatten: sizes must be non-empty");
}

TEST(SplitWithSizes, PiecesOfTheGivenLengthsAreViews) {
  const Tensor x = et::make_input({6, 4}, kDouble, et::seed_for("split_sizes"));
  auto r =
      torch_run("p = x.split([1, 3, 2]); a, b, c = p[0], p[1], p[2]\nd = x.split([4, 0], 1)[1]",
                {{"x", x}}, {"a", "b", "c", "d"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor xd = x.to(dev);
    std::vector<Tensor> p = xd.split({1, 3, 2});  // libtorch's spelling: split_with_sizes
    ASSERT_EQ(p.size(), 3u) << ctx;
    for (const Tensor& piece : p) EXPECT_TRUE(shares_storage(piece, xd)) << ctx;
    expect_close(p[0].cpu(), r.at("a"), 0, 0, ctx);
    expect_close(p[1].cpu(), r.at("b"), 0, 0, ctx);
    expect_close(split_with_sizes(xd, {1, 3, 2})[2].cpu(), r.at("c"), 0, 0, ctx);
    expect_close(xd.split_with_sizes({4, 0}, 1)[1].cpu(), r.at("d"), 0, 0, ctx + " empty piece");
    expect_grad_like_torch(
        x,
        [](const Tensor& t) {
          return t.split_with_sizes({2, 4})[1] * 3;
        },
        "y = x.split([2, 4])[1] * 3", dev);
  }
  EXPECT_EQ(error_of<ValueError>([&] {
              x.split({2, 2});
            }),
            "split_with_sizes expects split_sizes to sum exactly to 6 (input tensor's size at "
            "dimension 0), but got split_sizes=[2, 2]");
  EXPECT_EQ(error_of<ValueError>([&] {
              x.split_with_sizes({7, -1});
            }),
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            "split_sizes=[7, -1]");
}

TEST(Argwhere, IsNonzerosCoordinates) {
  const Tensor x = et::make_input({{3, 4}, kFloat, et::Domain::SmallInt}, 11);
  auto r = torch_run("y = torch.argwhere(x)", {{"x", x}});
  for (Device dev : et::test_devices()) {
    expect_close(argwhere(x.to(dev)).cpu(), r.at("y"), 0, 0, dev.str());
    expect_close(x.to(dev).argwhere().cpu(), r.at("y"), 0, 0, dev.str() + " method");
  }
}

TEST(IsInfIsFinite, SeeInfinitiesOfEverySignAndNaNAsNeitherInEveryDtype) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor specials = tensor({1.5, inf, -inf, nan, 0.0, -2.0, 65504.0, -1e300}, kDouble);
  for (ScalarType dt : {kDouble, kFloat, kHalf, kBFloat16, kInt, kBool}) {
    Tensor x = dt == kInt || dt == kBool ? tensor({0, 3, -2}, kInt).to(dt) : specials.to(dt);
    auto r = torch_run("a = torch.isinf(x); b = torch.isfinite(x)", {{"x", x}}, {"a", "b"});
    for (Device dev : et::test_devices()) {
      const std::string ctx = dev.str() + " " + std::string(to_string(dt));
      Tensor a = isinf(x.to(dev)), b = x.to(dev).isfinite();
      EXPECT_EQ(a.dtype(), kBool) << ctx;
      expect_close(a.cpu(), r.at("a"), 0, 0, ctx + " isinf");
      expect_close(b.cpu(), r.at("b"), 0, 0, ctx + " isfinite");
    }
  }
  Tensor leaf = tensor({1.0, inf}, kDouble).requires_grad_(true);
  EXPECT_FALSE(isinf(leaf).requires_grad());  // bool: nothing to differentiate
}
