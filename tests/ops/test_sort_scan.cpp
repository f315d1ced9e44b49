// sort, argsort, topk, cumsum and cumprod against PyTorch 1.13 on every device: values, indices
// (stable order with ties, NaN sorting greatest), every dim, non-contiguous inputs, 16-bit and
// integer dtypes, rows long enough for the CUDA merge sort, gradients, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>

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

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Small integers (many ties) in any dtype; floating dtypes also get NaN, +-inf and -0.
Tensor with_ties(std::vector<int64_t> shape, ScalarType dt, uint64_t seed) {
  Tensor x = et::make_input({shape, kDouble, et::Domain::SmallInt}, seed);
  if (is_floating_point(dt) && x.numel() >= 8) {
    Tensor flat = x.view({x.numel()});
    flat[1].fill_(kNaN);
    flat[x.numel() - 2].fill_(kNaN);
    flat[3].fill_(kInf);
    flat[5].fill_(-kInf);
    flat[6].fill_(-0.0);
  }
  return dt == kBool ? x.gt(0) : x.to(dt);
}

std::string py_bool(bool b) {
  return b ? "True" : "False";
}

}  // namespace

TEST(Sort, StableWithTiesAndNaNOnEveryDtypeDimAndDevice) {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kLong, kInt, kBool, kByte}) {
    const Tensor x = with_ties({4, 5, 6}, dt, et::seed_for("sort") + static_cast<int>(dt));
    for (int64_t dim : {0, 1, -1}) {
      for (bool desc : {false, true}) {
        const std::string py = "y, i = torch.sort(x, dim=" + std::to_string(dim) +
                               ", descending=" + py_bool(desc) + ", stable=True)";
        auto r = torch_run(py, {{"x", x}}, {"y", "i"});
        for (Device dev : et::test_devices()) {
          for (const Tensor& in : {x.to(dev), et::non_contiguous(x.to(dev))}) {
            const std::string ctx = std::string(to_string(dt)) + " dim " + std::to_string(dim) +
                                    (desc ? " descending " : " ascending ") + dev.str() +
                                    (in.is_contiguous() ? "" : " non-contiguous");
            auto [v, i] = ember::sort(in, dim, desc);
            EXPECT_EQ(v.device(), dev) << ctx;
            expect_close(v.cpu(), r.at("y"), 0, 0, ctx + " values");
            expect_close(i.cpu(), r.at("i"), 0, 0, ctx + " indices");
            auto [vs, is] = in.sort(std::optional<bool>(true), dim, desc);
            expect_close(is.cpu(), r.at("i"), 0, 0, ctx + " stable overload");
            expect_close(in.argsort(dim, desc).cpu(), r.at("i"), 0, 0, ctx + " argsort");
          }
        }
      }
    }
  }
}

TEST(Sort, LongRowsUseEveryCudaPath) {
  // 1023 and 1024 fit one block's shared memory on CUDA; 1025 and 3000 take the merge passes.
  for (int64_t n : {1, 2, 3, 1023, 1024, 1025, 3000}) {
    const Tensor x = with_ties({3, n}, kFloat, et::seed_for("sort_long") + n);
    for (bool desc : {false, true}) {
      auto r =
          torch_run("y, i = torch.sort(x, dim=1, descending=" + py_bool(desc) + ", stable=True)",
                    {{"x", x}}, {"y", "i"});
      for (Device dev : et::test_devices()) {
        const std::string ctx = "n " + std::to_string(n) + (desc ? " desc " : " asc ") + dev.str();
        auto [v, i] = x.to(dev).sort(1, desc);
        expect_close(v.cpu(), r.at("y"), 0, 0, ctx + " values");
        expect_close(i.cpu(), r.at("i"), 0, 0, ctx + " indices");
      }
    }
  }
}

TEST(Sort, ZeroDimAndEmpty) {
  for (Device dev : et::test_devices()) {
    auto [v, i] = tensor(3.5).to(dev).sort();
    EXPECT_EQ(v.dim(), 0);
    EXPECT_EQ(i.dim(), 0);
    EXPECT_EQ(v.item<double>(), 3.5);
    EXPECT_EQ(i.item<int64_t>(), 0);
    auto [ev, ei] = zeros({0, 3}, dev).sort(0);
    EXPECT_EQ(ev.sizes(), IntArrayRef({0, 3}));
    EXPECT_EQ(ei.dtype(), kLong);
    auto [tv, ti] = zeros({2, 0}, dev).topk(0);
    EXPECT_EQ(tv.sizes(), IntArrayRef({2, 0}));
  }
}

TEST(Sort, GradientScattersThroughIndices) {
  const Tensor x = et::make_input({3, 4, 5}, kDouble, et::seed_for("sort_grad"));
  const Tensor g = et::make_input({3, 4, 5}, kDouble, et::seed_for("sort_grad_g"));
  auto r =
      torch_run("x.requires_grad_(True); y = torch.sort(x, 1, True)[0]; y.backward(g); gx = x.grad",
                {{"x", x}, {"g", g}}, {"y", "gx"});
  for (Device dev : et::test_devices()) {
    Tensor xd = x.to(dev).detach().requires_grad_();
    Tensor y = std::get<0>(xd.sort(1, true));
    y.backward(g.to(dev));
    expect_close(y.detach().cpu(), r.at("y"), 0, 0, "sort values " + dev.str());
    expect_close(xd.grad().cpu(), r.at("gx"), 1e-12, 0, "sort grad " + dev.str());
  }
}

TEST(Topk, LargestSmallestDimsNaNAndGradients) {
  const Tensor x = et::make_input({5, 7}, kDouble, et::seed_for("topk"));  // no ties
  const Tensor g3 = et::make_input({5, 3}, kDouble, et::seed_for("topk_g"));
  const Tensor g2 = et::make_input({2, 7}, kDouble, et::seed_for("topk_g2"));
  auto r = torch_run(
      "x.requires_grad_(True)\n"
      "v, i = torch.topk(x, 3)\n"
      "v.backward(g3); gx = x.grad.clone(); x.grad = None\n"
      "w, j = x.topk(2, 0, False)\n"
      "w.backward(g2); gx2 = x.grad\n"
      "n = torch.tensor([3., float('nan'), 1., 5.]).to(x.dtype)\n"
      "nv, ni = n.topk(2); sv, si = n.topk(2, largest=False)",
      {{"x", x}, {"g3", g3}, {"g2", g2}},
      {"v", "i", "gx", "w", "j", "gx2", "nv", "ni", "sv", "si"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    Tensor xd = x.to(dev).detach().requires_grad_();
    auto [v, i] = ember::topk(xd, 3);
    expect_close(v.detach().cpu(), r.at("v"), 0, 0, ctx + " topk values");
    expect_close(i.cpu(), r.at("i"), 0, 0, ctx + " topk indices");
    v.backward(g3.to(dev));
    expect_close(xd.grad().cpu(), r.at("gx"), 1e-12, 0, ctx + " topk grad");
    xd.mutable_grad() = Tensor();
    auto [w, j] = xd.topk(2, 0, false);
    expect_close(w.detach().cpu(), r.at("w"), 0, 0, ctx + " smallest values");
    expect_close(j.cpu(), r.at("j"), 0, 0, ctx + " smallest indices");
    w.backward(g2.to(dev));
    expect_close(xd.grad().cpu(), r.at("gx2"), 1e-12, 0, ctx + " smallest grad");

    Tensor n = tensor({3., kNaN, 1., 5.}, kDouble).to(dev);
    auto [nv, ni] = n.topk(2);
    expect_close(nv.cpu(), r.at("nv"), 0, 0, ctx + " NaN is largest");
    expect_close(ni.cpu(), r.at("ni"), 0, 0, ctx + " NaN index");
    auto [sv, si] = n.topk(2, -1, false);
    expect_close(sv.cpu(), r.at("sv"), 0, 0, ctx + " smallest skip NaN");
    expect_close(si.cpu(), r.at("si"), 0, 0, ctx + " smallest skip NaN index");
  }
}

TEST(Sort, BadInput) {
  Tensor x = ones({3, 4});
  std::string msg = error_of<IndexError>([&] { x.sort(2); });
  EXPECT_TRUE(contains(msg, "Dimension out of range") && contains(msg, "[-2, 1]") &&
              contains(msg, "got 2"))
      << msg;
  msg = error_of<IndexError>(
      [&] { x.argsort(int64_t{-3}); });  // argsort(int) is ambiguous in libtorch too
  EXPECT_TRUE(contains(msg, "Dimension out of range") && contains(msg, "got -3")) << msg;
  msg = error_of<ValueError>([&] { x.topk(5); });
  EXPECT_TRUE(contains(msg, "selected index k out of range") && contains(msg, "k = 5") &&
              contains(msg, "size 4"))
      << msg;
  msg = error_of<ValueError>([&] { x.topk(-1, 0); });
  EXPECT_TRUE(contains(msg, "k out of range") && contains(msg, "k = -1")) << msg;
  msg = error_of<IndexError>([&] { x.topk(1, 3); });
  EXPECT_TRUE(contains(msg, "Dimension out of range") && contains(msg, "got 3")) << msg;
}

TEST(Cumsum, DtypesDimsLayoutsAndDevices) {
  for (ScalarType dt : {kFloat, kDouble, kBFloat16, kLong, kInt, kBool, kByte}) {
    const Tensor x = dt == kBool ? et::make_input({{4, 5, 6}, kBool, et::Domain::Bool}, 3)
                                 : et::make_input({4, 5, 6}, dt, et::seed_for("cumsum") + int(dt));
    for (int64_t dim : {0, 1, -1}) {
      const std::string d = std::to_string(dim);
      auto r = torch_run("s = torch.cumsum(x, " + d + "); p = torch.cumprod(x, " + d +
                             "); sd = torch.cumsum(x, " + d + ", dtype=torch.float64)",
                         {{"x", x}}, {"s", "p", "sd"});
      const double tol = dt == kBFloat16 ? 1e-2 : dt == kFloat ? 1e-6 : 1e-12;
      for (Device dev : et::test_devices()) {
        for (const Tensor& in : {x.to(dev), et::non_contiguous(x.to(dev))}) {
          const std::string ctx = std::string(to_string(dt)) + " dim " + d + " " + dev.str() +
                                  (in.is_contiguous() ? "" : " non-contiguous");
          Tensor s = ember::cumsum(in, dim);
          EXPECT_EQ(s.device(), dev) << ctx;
          expect_close(s.cpu(), r.at("s"), tol, tol, ctx + " cumsum");
          expect_close(in.cumprod(dim).cpu(), r.at("p"), tol, tol, ctx + " cumprod");
          expect_close(in.cumsum(dim, kDouble).cpu(), r.at("sd"), 1e-12, 1e-12, ctx + " dtype");
        }
      }
    }
  }
}

TEST(Cumsum, HalfAndLongRowsAndZeroDim) {
  // PyTorch 1.13's CPU has no float16 cumsum: compare with float64 math rounded once.
  const Tensor h = et::make_input({3, 40}, kHalf, et::seed_for("cumsum_half"));
  const Tensor x = et::make_input({2, 5000}, kFloat, et::seed_for("cumsum_long"));
  auto r = torch_run("y = torch.cumsum(x, 1)", {{"x", x}});
  for (Device dev : et::test_devices()) {
    expect_close(h.to(dev).cumsum(1).cpu(), h.to(kDouble).cumsum(1).to(kHalf), 4e-3, 4e-3,
                 "half cumsum on " + dev.str());
    // float32 accumulates in float64 as PyTorch's CPU does: long rows match closely.
    expect_close(x.to(dev).cumsum(1).cpu(), r.at("y"), 1e-6, 1e-6, "long cumsum " + dev.str());
    Tensor s = tensor(2.5).to(dev);
    EXPECT_EQ(s.cumsum(0).dim(), 0);
    EXPECT_EQ(s.cumprod(-1).item<double>(), 2.5);
    EXPECT_EQ(zeros({0, 3}, dev).cumsum(0).sizes(), IntArrayRef({0, 3}));
  }
}

TEST(Cumsum, GradientsIncludingCumprodWithZeros) {
  // Rows without zeros, with one zero (first, middle, last) and with two zeros.
  Tensor x = et::make_input({6, 5}, kDouble, et::seed_for("cumprod_grad"));
  x.select(0, 1).select(0, 0).fill_(0);
  x.select(0, 2).select(0, 2).fill_(0);
  x.select(0, 3).select(0, 4).fill_(0);
  x.select(0, 4).select(0, 1).fill_(0);
  x.select(0, 4).select(0, 3).fill_(0);
  const Tensor g = et::make_input({6, 5}, kDouble, et::seed_for("cumprod_grad_g"));
  const Tensor h = et::make_input({6, 5}, kDouble, et::seed_for("cumprod_grad_h"));
  auto r = torch_run(
      "x.requires_grad_(True)\n"
      "gs, = torch.autograd.grad(torch.cumsum(x, 0), x, g)\n"
      "gp, = torch.autograd.grad(torch.cumprod(x, 1), x, g, create_graph=True)\n"
      "ggp, = torch.autograd.grad(gp, x, h)\n"
      "gpc, = torch.autograd.grad(torch.cumprod(x, 0, dtype=torch.float32), x, g.float())",
      {{"x", x}, {"g", g}, {"h", h}}, {"gs", "gp", "ggp", "gpc"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    Tensor xd = x.to(dev).detach().requires_grad_();
    Tensor gd = g.to(dev);
    auto gs = autograd::grad({ember::cumsum(xd, 0)}, {xd}, {gd});
    expect_close(gs[0].cpu(), r.at("gs"), 1e-12, 1e-12, ctx + " cumsum grad");
    auto gp = autograd::grad({ember::cumprod(xd, 1)}, {xd}, {gd}, std::nullopt, true);
    expect_close(gp[0].detach().cpu(), r.at("gp"), 1e-12, 1e-12, ctx + " cumprod grad");
    auto ggp = autograd::grad({gp[0]}, {xd}, {h.to(dev)});
    expect_close(ggp[0].cpu(), r.at("ggp"), 1e-10, 1e-10, ctx + " cumprod double backward");
    auto gpc = autograd::grad({ember::cumprod(xd, 0, kFloat)}, {xd}, {gd.to(kFloat)});
    EXPECT_EQ(gpc[0].dtype(), kDouble) << ctx;
    expect_close(gpc[0].cpu(), r.at("gpc"), 1e-5, 1e-5, ctx + " cumprod dtype grad");
  }
}

TEST(Cumsum, BadInput) {
  Tensor x = ones({3, 4});
  std::string msg = error_of<IndexError>([&] { x.cumsum(2); });
  EXPECT_TRUE(contains(msg, "cumsum") && contains(msg, "Dimension out of range") &&
              contains(msg, "got 2"))
      << msg;
  msg = error_of<IndexError>([&] { ember::cumprod(x, -3); });
  EXPECT_TRUE(contains(msg, "cumprod") && contains(msg, "got -3")) << msg;
}
