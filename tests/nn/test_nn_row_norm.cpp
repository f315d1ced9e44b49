// The fused normalisation behind layer_norm, group_norm and instance_norm (src/ops/row_norm.cpp,
// the row_norm families of src/cpu and src/cuda) beyond their op rows: every weight layout and
// which inputs want gradients, against PyTorch on every device; rows longer than a CUDA block, many
// short rows (CUDA's weight gradients in chunks of rows) and rows with a large offset; second
// derivatives; the peak memory of the forward and the backward; bad input.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/autograd.h"
#include "ember/cuda.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::contains;
using ember::testing::cuda_devices;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::torch_run;
namespace et = ember::testing;

namespace {

// One call of a normalisation with its inputs, in both libraries.
struct Case {
  std::string name;
  std::vector<int64_t> x_shape, w_shape;  // w_shape empty: no weight and no bias
  bool weight = true, bias = true;
  std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)> ember_fn;
  std::string torch;  // Python computing y from x, w, b
  // float32's absolute tolerance: rows of two elements normalise to +-1, and their gradient is a
  // difference of terms near 1 (rounded in PyTorch as in Ember).
  double float_atol = 1e-5;
};

std::vector<Case> cases() {
  return {
      {"layer_norm [*, 7]",
       {3, 5, 7},
       {7},
       true,
       true,
       [](const Tensor& x, const Tensor& w, const Tensor& b) {
         return layer_norm(x, {7}, w, b, 1e-5);
       },
       "y = F.layer_norm(x, [7], w, b)"},
      {"layer_norm over two dims, weight only",
       {4, 3, 6},
       {3, 6},
       true,
       false,
       [](const Tensor& x, const Tensor& w, const Tensor&) {
         return layer_norm(x, {3, 6}, w, {});
       },
       "y = F.layer_norm(x, [3, 6], w)"},
      {"layer_norm, bias only",
       {6, 5},
       {5},
       false,
       true,
       [](const Tensor& x, const Tensor&, const Tensor& b) { return layer_norm(x, {5}, {}, b); },
       "y = F.layer_norm(x, [5], None, b)"},
      {"layer_norm, many short rows",
       {40, 30, 5},
       {5},
       true,
       true,
       [](const Tensor& x, const Tensor& w, const Tensor& b) { return layer_norm(x, {5}, w, b); },
       "y = F.layer_norm(x, [5], w, b)"},
      {"layer_norm, rows longer than a block",
       {3, 700},
       {700},
       true,
       true,
       [](const Tensor& x, const Tensor& w, const Tensor& b) {
         return layer_norm(x, {700}, w, b, 1e-3);
       },
       "y = F.layer_norm(x, [700], w, b, eps=1e-3)"},
      {"group_norm, 2 groups of 3 channels",
       {2, 6, 5, 3},
       {6},
       true,
       true,
       [](const Tensor& x, const Tensor& w, const Tensor& b) { return group_norm(x, 2, w, b); },
       "y = F.group_norm(x, 2, w, b)"},
      {"group_norm, one group, weight only",
       {3, 4, 9},
       {4},
       true,
       false,
       [](const Tensor& x, const Tensor& w, const Tensor&) { return group_norm(x, 1, w, {}); },
       "y = F.group_norm(x, 1, w)"},
      {"group_norm, a group per channel, bias only",
       {2, 3, 4, 2, 2},
       {3},
       false,
       true,
       [](const Tensor& x, const Tensor&, const Tensor& b) { return group_norm(x, 3, {}, b); },
       // PyTorch 1.13's group_norm fails in backward with a bias and no weight ("tensor does
       // not have a device"), so the oracle adds the bias itself.
       "y = F.group_norm(x, 3) + b.view(1, 3, 1, 1, 1)"},
      {"group_norm [N, C], no affine",
       {5, 8},
       {},
       false,
       false,
       [](const Tensor& x, const Tensor&, const Tensor&) { return group_norm(x, 4, {}, {}); },
       "y = F.group_norm(x, 4)",
       5e-4},
      {"instance_norm 1d",
       {3, 4, 300},
       {4},
       true,
       true,
       [](const Tensor& x, const Tensor& w, const Tensor& b) {
         return instance_norm(x, w, b, {}, {}, true, 0.1, 1e-5);
       },
       "y = F.instance_norm(x, weight=w, bias=b)"},
      {"instance_norm 3d, no affine",
       {2, 3, 2, 3, 4},
       {},
       false,
       false,
       [](const Tensor& x, const Tensor&, const Tensor&) {
         return instance_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5);
       },
       "y = F.instance_norm(x)"},
  };
}

// Forward and every gradient against PyTorch, for each subset of inputs that wants gradients.
void check_case(const Case& c, Device dev, ScalarType dtype, double rtol, double atol) {
  const Tensor x = et::make_input(c.x_shape, dtype, et::seed_for(c.name));
  const Tensor w =
      c.weight ? et::make_input(c.w_shape, dtype, et::seed_for(c.name + "w")) : Tensor();
  const Tensor b = c.bias ? et::make_input(c.w_shape, dtype, et::seed_for(c.name + "b")) : Tensor();
  const Tensor g = et::make_input(c.x_shape, dtype, et::seed_for(c.name + "g"));
  std::map<std::string, Tensor> in{{"x", x}, {"g", g}};
  std::string py = "x.requires_grad_(True)\n";
  if (c.weight) {
    in["w"] = w;
    py += "w.requires_grad_(True)\n";
  } else {
    py += "w = None\n";
  }
  if (c.bias) {
    in["b"] = b;
    py += "b.requires_grad_(True)\n";
  } else {
    py += "b = None\n";
  }
  py += c.torch +
        "\ny.backward(g)\ngx = x.grad\n"
        "gw = w.grad if w is not None else torch.zeros(0)\n"
        "gb = b.grad if b is not None else torch.zeros(0)";
  const auto r = torch_run(py, in, {"y", "gx", "gw", "gb"});
  // Every combination of x, w, b wanting a gradient, so the kernels skip what is not asked for.
  for (int mask = 1; mask < 8; ++mask) {
    const bool want_x = mask & 1, want_w = (mask & 2) && c.weight, want_b = (mask & 4) && c.bias;
    if ((mask & 2 && !c.weight) || (mask & 4 && !c.bias)) continue;
    const std::string ctx = c.name + " on " + dev.str() + " (" + std::to_string(mask) + ")";
    // Fresh leaves each time (to() of a CPU tensor to the CPU is the tensor itself).
    auto leaf = [&](const Tensor& t, bool wanted) {
      return t.defined() ? t.to(dev).clone().requires_grad_(wanted) : Tensor();
    };
    Tensor xd = leaf(x, want_x), wd = leaf(w, want_w), bd = leaf(b, want_b);
    Tensor y = c.ember_fn(xd, wd, bd);
    expect_close(y.cpu().detach(), r.at("y"), rtol, atol, ctx + " y");
    y.backward(g.to(dev));
    if (want_x) expect_close(xd.grad().cpu(), r.at("gx"), rtol, atol, ctx + " dx");
    if (want_w) expect_close(wd.grad().cpu(), r.at("gw"), rtol, atol, ctx + " dw");
    if (want_b) expect_close(bd.grad().cpu(), r.at("gb"), rtol, atol, ctx + " db");
    if (!want_x) EXPECT_FALSE(xd.grad().defined()) << ctx;
  }
}

}  // namespace

TEST(RowNorm, EveryLayoutAgainstPyTorch) {
  for (Device dev : et::test_devices()) {
    for (const Case& c : cases()) {
      check_case(c, dev, kDouble, 1e-10, 1e-12);
      check_case(c, dev, kFloat, 1e-4, c.float_atol);
    }
  }
}

TEST(RowNorm, HalfInputsNormaliseInFloat) {
  // 16-bit input is normalised in float32 and rounded once: the result is float32's, rounded.
  for (Device dev : et::test_devices()) {
    for (ScalarType dtype : {kHalf, kBFloat16}) {
      const Tensor x = et::make_input({4, 6, 8}, kFloat, 21).to(dtype).to(dev);
      const Tensor w = et::make_input({6}, kFloat, 22).to(dev);
      const Tensor y = group_norm(x, 3, w, {});
      EXPECT_EQ(y.scalar_type(), dtype);
      // Within one rounding of the 16-bit type (the devices sum in different orders).
      const double tol = dtype == kHalf ? 1e-3 : 8e-3;
      expect_close(y.cpu(), group_norm(x.cpu().to(kFloat), 3, w.cpu(), {}).to(dtype), tol, tol,
                   dev.str());
    }
  }
}

TEST(RowNorm, LargeOffsetsKeepTheirPrecision) {
  // Rows of 2000 floats at 10000 +- 1: the variance about the mean (not E[x^2] - E[x]^2) keeps
  // float32 within 1e-3 of float64's answer on every device.
  const Tensor x = et::make_input({6, 2000}, kFloat, 31) + 10000.0;
  const Tensor expected = layer_norm(x.to(kDouble), {2000}, {}, {}, 1e-5).to(kFloat);
  for (Device dev : et::test_devices()) {
    expect_close(layer_norm(x.to(dev), {2000}, {}, {}, 1e-5).cpu(), expected, 1e-3, 2e-3,
                 dev.str());
  }
}

TEST(RowNorm, SecondDerivativesMatchPyTorch) {
  // A backward that builds a graph is the formula in ember ops, so gradients of gradients work.
  struct Second {
    const char* name;
    std::vector<int64_t> x_shape, w_shape;
    std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)> fn;
    const char* torch;
  };
  const std::vector<Second> all{
      {"layer_norm",
       {3, 5},
       {5},
       [](const Tensor& x, const Tensor& w, const Tensor& b) { return layer_norm(x, {5}, w, b); },
       "F.layer_norm(x, [5], w, b)"},
      {"group_norm",
       {2, 4, 3},
       {4},
       [](const Tensor& x, const Tensor& w, const Tensor& b) { return group_norm(x, 2, w, b); },
       "F.group_norm(x, 2, w, b)"},
      {"instance_norm",
       {2, 3, 4},
       {3},
       [](const Tensor& x, const Tensor& w, const Tensor& b) {
         return instance_norm(x, w, b, {}, {}, true, 0.1, 1e-5);
       },
       "F.instance_norm(x, weight=w, bias=b)"},
  };
  for (Device dev : et::test_devices()) {
    for (const Second& s : all) {
      const std::string ctx = std::string(s.name) + " on " + dev.str();
      const Tensor x0 = et::make_input(s.x_shape, kDouble, et::seed_for(ctx));
      const Tensor w0 = et::make_input(s.w_shape, kDouble, 41),
                   b0 = et::make_input(s.w_shape, kDouble, 42);
      const Tensor u = et::make_input(s.x_shape, kDouble, 43),
                   v = et::make_input(s.x_shape, kDouble, 44);
      const auto r = torch_run(
          "x.requires_grad_(True); w.requires_grad_(True); b.requires_grad_(True)\n"
          "y = " +
              std::string(s.torch) +
              "\n"
              "gx, gw = torch.autograd.grad((y * u).sum(), (x, w), create_graph=True)\n"
              "hx, hw, hb = torch.autograd.grad((gx * v).sum() + gw.sum(), (x, w, b), "
              "allow_unused=True)\n"
              "hb = torch.zeros_like(b) if hb is None else hb",
          {{"x", x0}, {"w", w0}, {"b", b0}, {"u", u}, {"v", v}}, {"gx", "gw", "hx", "hw", "hb"});
      Tensor x = x0.to(dev).requires_grad_(true), w = w0.to(dev).requires_grad_(true),
             b = b0.to(dev).requires_grad_(true);
      const Tensor y = s.fn(x, w, b);
      auto g = autograd::grad({(y * u.to(dev)).sum()}, {x, w}, {}, std::nullopt, true);
      expect_close(g[0].detach().cpu(), r.at("gx"), 1e-9, 1e-11, ctx + " gx");
      expect_close(g[1].detach().cpu(), r.at("gw"), 1e-9, 1e-11, ctx + " gw");
      auto h = autograd::grad({(g[0] * v.to(dev)).sum() + g[1].sum()}, {x, w, b}, {}, std::nullopt,
                              false, /*allow_unused=*/true);
      expect_close(h[0].cpu(), r.at("hx"), 1e-9, 1e-11, ctx + " hx");
      expect_close(h[1].cpu(), r.at("hw"), 1e-9, 1e-11, ctx + " hw");
      expect_close(h[2].defined() ? h[2].cpu() : zeros_like(b0), r.at("hb"), 1e-9, 1e-11,
                   ctx + " hb");
    }
  }
}

TEST(RowNorm, EmptyInputs) {
  for (Device dev : et::test_devices()) {
    const auto opts = TensorOptions().device(dev);
    Tensor x = zeros({0, 6}, opts).requires_grad_(true), w = ones({6}, opts).requires_grad_(true);
    Tensor y = layer_norm(x, {6}, w, {});
    EXPECT_EQ(y.sizes(), IntArrayRef({0, 6}));
    y.sum().backward();
    expect_close(w.grad().cpu(), zeros({6}), 0, 0, dev.str() + ": no rows, no weight gradient");
    Tensor z = zeros({0, 4, 3}, opts);
    EXPECT_EQ(group_norm(z, 2, ones({4}, opts), zeros({4}, opts)).sizes(), IntArrayRef({0, 4, 3}));
  }
}

TEST(RowNorm, CudaForwardAndBackwardHoldNoIntermediates) {
  // The fused kernels allocate their outputs and [rows] statistics only: the forward's peak is
  // the output, and the backward's the three gradients, where the composition held several
  // [rows, K] temporaries.
  EMBER_SKIP_WITHOUT_CUDA();
  const Device dev = cuda_devices().front();
  const auto opts = TensorOptions().device(dev);
  const int64_t rows = 64, K = 512, bytes = rows * K * 4;
  Tensor x = randn({rows, K}, opts).requires_grad_(true), w = randn({K}, opts).requires_grad_(true),
         b = randn({K}, opts).requires_grad_(true), g = randn({rows, K}, opts);
  cuda::synchronize();
  size_t before = cuda::memory_allocated(dev.index());
  cuda::reset_peak_memory_stats(dev.index());
  Tensor y = layer_norm(x, {K}, w, b);
  cuda::synchronize();
  EXPECT_LE(cuda::max_memory_allocated(dev.index()) - before, size_t(bytes + 4096));
  before = cuda::memory_allocated(dev.index());
  cuda::reset_peak_memory_stats(dev.index());
  y.backward(g);
  cuda::synchronize();
  // dx, dw and db, and the weight gradients' partial sums (at most one per 16 rows).
  EXPECT_LE(cuda::max_memory_allocated(dev.index()) - before,
            size_t(bytes + 2 * K * 4 + bytes / 8 + 4096));
}

TEST(RowNorm, BadInput) {
  std::string e = error_of([] { layer_norm(ones({2, 3}, kLong), {3}, {}, {}); });
  EXPECT_TRUE(contains(e, "layer_norm(): expected a floating-point input, got Long")) << e;
  e = error_of([] { group_norm(ones({2, 4, 3}, kInt), 2, {}, {}); });
  EXPECT_TRUE(contains(e, "group_norm(): expected a floating-point input, got Int")) << e;
  e = error_of([] { layer_norm(ones({2, 3}), {3}, ones({4}), {}); });
  EXPECT_TRUE(contains(e, "weight and bias must have shape [3], got [4]")) << e;
  e = error_of([] { group_norm(ones({2, 4, 3}), 3, {}, {}); });
  EXPECT_TRUE(contains(e, "divisible by num_groups")) << e;
  // The process goes on: the same call with good input works.
  EXPECT_EQ(layer_norm(ones({2, 3}), {3}, ones({3}), {}).sizes(), IntArrayRef({2, 3}));
  if (!cuda::is_available()) return;
  e = error_of([] { layer_norm(ones({2, 3}), {3}, ones({3}, TensorOptions().device(kCUDA)), {}); });
  EXPECT_TRUE(contains(e, "same device")) << e;
}
