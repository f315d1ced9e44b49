// The direct convolution (the convolution families of core/backend.h: oneDNN's kernels on the CPU
// for float32) behind conv1d, conv2d and conv3d: which path runs, each geometry with every subset
// of inputs wanting gradients against PyTorch, second derivatives (which differentiate the
// composed form), and the composed path's errors for operands the direct one declines.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cpu/dnnl_convolution.h"
#include "ember/autograd.h"
#include "ember/backends.h"
#include "ember/nn/functional.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::torch_run;
namespace et = ember::testing;

namespace {

using ConvFn = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>;

struct Case {
  std::string name;
  std::vector<int64_t> x_shape, w_shape;
  bool bias;
  ConvFn fn;
  std::string torch;      // Python computing y from x, w, b
  int64_t bias_size = 0;  // 0: w_shape[0] (a transposed convolution's is w_shape[1] * groups)
  int64_t bias_len() const { return bias_size ? bias_size : w_shape[0]; }
};

std::vector<Case> cases() {
  return {
      {"conv2d 3x3 pad 1",
       {2, 3, 9, 8},
       {5, 3, 3, 3},
       true,
       [](auto& x, auto& w, auto& b) { return conv2d(x, w, b, 1, 1); },
       "F.conv2d(x, w, b, padding=1)"},
      {"conv2d stride 2, dilation 2, no bias",
       {2, 4, 11, 10},
       {6, 4, 3, 2},
       false,
       [](auto& x, auto& w, auto& b) {
         return conv2d(x, w, b, 2, {1, 0}, 2);
       },
       "F.conv2d(x, w, b, stride=2, padding=(1, 0), dilation=2)"},
      {"conv2d groups 2, stride leaving rows unread",
       {1, 4, 8, 7},
       {6, 2, 3, 3},
       true,
       [](auto& x, auto& w, auto& b) { return conv2d(x, w, b, 3, 0, 1, 2); },
       "F.conv2d(x, w, b, stride=3, groups=2)"},
      {"conv2d depthwise",
       {2, 4, 6, 6},
       {4, 1, 3, 3},
       true,
       [](auto& x, auto& w, auto& b) { return conv2d(x, w, b, 1, 1, 1, 4); },
       "F.conv2d(x, w, b, padding=1, groups=4)"},
      {"conv2d padding same, even kernel",
       {1, 2, 7, 6},
       {3, 2, 4, 2},
       true,
       [](auto& x, auto& w, auto& b) { return nn::conv2d_with_padding(x, w, b, 1, kSame, 1, 1); },
       "F.conv2d(x, w, b, padding='same')"},
      {"conv2d unbatched",
       {3, 5, 5},
       {2, 3, 2, 2},
       true,
       [](auto& x, auto& w, auto& b) { return conv2d(x, w, b); },
       "F.conv2d(x, w, b)"},
      {"conv1d text CNN",
       {3, 8, 12},
       {5, 8, 3},
       true,
       [](auto& x, auto& w, auto& b) { return conv1d(x, w, b); },
       "F.conv1d(x, w, b)"},
      {"conv3d stride 2 pad 1",
       {1, 2, 5, 6, 5},
       {3, 2, 3, 3, 3},
       true,
       [](auto& x, auto& w, auto& b) { return conv3d(x, w, b, 2, 1); },
       "F.conv3d(x, w, b, stride=2, padding=1)"},
      {"conv_transpose2d DCGAN up-sampling",
       {2, 6, 5, 4},
       {6, 3, 4, 4},
       true,
       [](auto& x, auto& w, auto& b) { return conv_transpose2d(x, w, b, 2, 1); },
       "F.conv_transpose2d(x, w, b, stride=2, padding=1)",
       3},
      {"conv_transpose2d output_padding past the padding, groups 2, dilation 2",
       {1, 4, 5, 6},
       {4, 3, 3, 2},
       true,
       [](auto& x, auto& w, auto& b) {
         return conv_transpose2d(x, w, b, 3, {0, 1}, {2, 1}, 2, 2);
       },
       "F.conv_transpose2d(x, w, b, stride=3, padding=(0, 1), output_padding=(2, 1), groups=2, "
       "dilation=2)",
       6},
      {"conv_transpose2d output_padding beyond the stride (composed), no bias",
       {1, 2, 4, 4},
       {2, 3, 2, 2},
       false,
       [](auto& x, auto& w, auto& b) { return conv_transpose2d(x, w, b, 1, 0, 1, 1, 2); },
       "F.conv_transpose2d(x, w, b, output_padding=1, dilation=2)",
       3},
      {"conv_transpose1d stride 2",
       {2, 5, 7},
       {5, 4, 3},
       true,
       [](auto& x, auto& w, auto& b) { return conv_transpose1d(x, w, b, 2, 1, 1); },
       "F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1)",
       4},
      {"conv_transpose3d stride 2",
       {1, 3, 3, 4, 3},
       {3, 2, 3, 3, 3},
       true,
       [](auto& x, auto& w, auto& b) { return conv_transpose3d(x, w, b, 2, 1, 1); },
       "F.conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1)",
       2},
  };
}

size_t count_named(const std::vector<profiler::FunctionEvent>& evs, const std::string& name) {
  size_t n = 0;
  for (const auto& e : evs) n += e.name == name;
  return n;
}

}  // namespace

// float32 CPU convolutions are the backend's direct kernel exactly when the build has oneDNN: one
// ember::convolution forward and one ember::convolution_backward, and no im2col. float64 (which
// oneDNN does not do) stays composed.
TEST(DirectConv, TheDirectKernelRunsWhereTheBackendHasOne) {
  const bool direct = cpu::dnnl_convolution_available();
  for (ScalarType dtype : {kFloat, kDouble}) {
    Tensor x = et::make_input({2, 3, 8, 8}, dtype, 1).requires_grad_(true);
    Tensor w = et::make_input({4, 3, 3, 3}, dtype, 2).requires_grad_(true);
    Tensor b = et::make_input({4}, dtype, 3).requires_grad_(true);
    profiler::profile prof;
    conv2d(x, w, b, 1, 1).sum().backward();
    prof.stop();
    const bool expect_direct = direct && dtype == kFloat;
    const std::string ctx = python_name(dtype);
    EXPECT_EQ(count_named(prof.events(), "ember::convolution"), expect_direct ? 1u : 0u) << ctx;
    EXPECT_EQ(count_named(prof.events(), "ember::convolution_backward"), expect_direct ? 1u : 0u)
        << ctx;
    EXPECT_EQ(count_named(prof.events(), "ember::im2col"), expect_direct ? 0u : 1u) << ctx;
  }
  if (direct) {
    const Tensor x = empty({2, 3, 8, 8}), w = empty({4, 3, 3, 3});
    const Window g{3, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 8, 8};
    EXPECT_FALSE(cpu::dnnl_convolution_kernel(x, w, g, 1).empty());
  }
}

// A transposed convolution is the convolution's backward-data kernel: its forward is one
// ember::convolution_backward, its input gradient one ember::convolution and its weight gradient
// one more ember::convolution_backward, with no col2im. float64 stays composed.
TEST(DirectConv, TransposedConvolutionsAreTheAdjointKernels) {
  const bool direct = cpu::dnnl_convolution_available();
  for (ScalarType dtype : {kFloat, kDouble}) {
    Tensor x = et::make_input({2, 4, 5, 5}, dtype, 21).requires_grad_(true);
    Tensor w = et::make_input({4, 3, 4, 4}, dtype, 22).requires_grad_(true);
    Tensor b = et::make_input({3}, dtype, 23).requires_grad_(true);
    profiler::profile prof;
    conv_transpose2d(x, w, b, 2, 1).sum().backward();
    prof.stop();
    const bool expect_direct = direct && dtype == kFloat;
    const std::string ctx = python_name(dtype);
    EXPECT_EQ(count_named(prof.events(), "ember::convolution_backward"), expect_direct ? 2u : 0u)
        << ctx;
    EXPECT_EQ(count_named(prof.events(), "ember::convolution"), expect_direct ? 1u : 0u) << ctx;
    EXPECT_EQ(count_named(prof.events(), "ember::col2im"), expect_direct ? 0u : 1u) << ctx;
  }
}

// backends::mkldnn::set_enabled(false) (torch.backends.mkldnn.enabled = False) sends float32 CPU
// convolutions to the composed path, with the same result.
TEST(DirectConv, TheMkldnnSwitchTurnsItOff) {
  EXPECT_EQ(backends::mkldnn::is_available(), cpu::dnnl_convolution_available());
  const Tensor x = et::make_input({2, 3, 8, 8}, kFloat, 4),
               w = et::make_input({4, 3, 3, 3}, kFloat, 5);
  const Tensor direct = conv2d(x, w, {}, 1, 1);
  backends::mkldnn::set_enabled(false);
  profiler::profile prof;
  const Tensor composed = conv2d(x, w, {}, 1, 1);
  prof.stop();
  backends::mkldnn::set_enabled(true);
  EXPECT_EQ(count_named(prof.events(), "ember::convolution"), 0u);
  EXPECT_EQ(count_named(prof.events(), "ember::im2col"), 1u);
  expect_close(composed, direct, 1e-5, 1e-5, "composed vs direct");
}

TEST(DirectConv, EveryGeometryAndGradientSubsetMatchesTorch) {
  for (const Case& c : cases()) {
    const Tensor x = et::make_input(c.x_shape, kFloat, et::seed_for(c.name + "x"));
    const Tensor w = et::make_input(c.w_shape, kFloat, et::seed_for(c.name + "w"));
    const Tensor b =
        c.bias ? et::make_input({c.bias_len()}, kFloat, et::seed_for(c.name + "b")) : Tensor();
    const Tensor y0 = c.fn(x, w, b);
    const Tensor g = et::make_input(y0.sizes().vec(), kFloat, et::seed_for(c.name + "g"));
    std::map<std::string, Tensor> in{{"x", x}, {"w", w}, {"g", g}};
    std::string py = "x.requires_grad_(True)\nw.requires_grad_(True)\n";
    if (c.bias) {
      in["b"] = b;
      py += "b.requires_grad_(True)\n";
    } else {
      py += "b = None\n";
    }
    py += "y = " + c.torch +
          "\ny.backward(g)\ngx = x.grad\ngw = w.grad\n"
          "gb = b.grad if b is not None else torch.zeros(0)";
    const auto r = torch_run(py, in, {"y", "gx", "gw", "gb"});
    for (int mask = 1; mask < 8; ++mask) {
      const bool want_x = mask & 1, want_w = mask & 2, want_b = (mask & 4) && c.bias;
      if ((mask & 4) && !c.bias) continue;
      const std::string ctx = c.name + " (" + std::to_string(mask) + ")";
      Tensor xd = x.clone().requires_grad_(want_x), wd = w.clone().requires_grad_(want_w);
      Tensor bd = c.bias ? b.clone().requires_grad_(want_b) : Tensor();
      const Tensor y = c.fn(xd, wd, bd);
      expect_close(y.detach(), r.at("y"), 1e-4, 1e-5, ctx + " y");
      y.backward(g);
      if (want_x) expect_close(xd.grad(), r.at("gx"), 1e-4, 1e-4, ctx + " dx");
      if (want_w) expect_close(wd.grad(), r.at("gw"), 1e-4, 1e-4, ctx + " dw");
      if (want_b) expect_close(bd.grad(), r.at("gb"), 1e-4, 1e-4, ctx + " db");
      EXPECT_EQ(xd.grad().defined(), want_x) << ctx;
      EXPECT_EQ(wd.grad().defined(), want_w) << ctx;
    }
  }
}

// A backward that builds a graph differentiates the composed form: the second derivatives of a
// float32 convolution (the direct kernel's forward) match PyTorch's.
TEST(DirectConv, SecondDerivativesMatchTorch) {
  for (const Case& c : cases()) {
    if (!c.bias) continue;
    const Tensor x0 = et::make_input(c.x_shape, kFloat, et::seed_for(c.name + "x2"));
    const Tensor w0 = et::make_input(c.w_shape, kFloat, et::seed_for(c.name + "w2"));
    const Tensor b0 = et::make_input({c.bias_len()}, kFloat, et::seed_for(c.name + "b2"));
    const Tensor u = et::make_input(c.fn(x0, w0, b0).sizes().vec(), kFloat, 7);
    const Tensor v = et::make_input(c.x_shape, kFloat, 8);
    const auto r = torch_run(
        "x.requires_grad_(True); w.requires_grad_(True); b.requires_grad_(True)\n"
        "y = " +
            c.torch +
            "\n"
            "gx, gw = torch.autograd.grad((y * u).sum(), (x, w), create_graph=True)\n"
            "hx, hw = torch.autograd.grad((gx * v).sum() + (gw * gw).sum(), (x, w))",
        {{"x", x0}, {"w", w0}, {"b", b0}, {"u", u}, {"v", v}}, {"gx", "gw", "hx", "hw"});
    Tensor x = x0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true),
           b = b0.clone().requires_grad_(true);
    const auto g = autograd::grad({(c.fn(x, w, b) * u).sum()}, {x, w}, {}, std::nullopt, true);
    expect_close(g[0].detach(), r.at("gx"), 1e-4, 1e-4, c.name + " gx");
    expect_close(g[1].detach(), r.at("gw"), 1e-4, 1e-4, c.name + " gw");
    const auto h = autograd::grad({(g[0] * v).sum() + (g[1] * g[1]).sum()}, {x, w});
    expect_close(h[0], r.at("hx"), 1e-4, 1e-3, c.name + " hx");
    expect_close(h[1], r.at("hw"), 1e-4, 1e-3, c.name + " hw");
  }
}

// Operands the direct kernel declines (mixed dtypes, empty batches) take the composed path, which
// gives PyTorch's result or names the mismatch.
TEST(DirectConv, DeclinedOperandsGetTheComposedPathsAnswer) {
  const Tensor x = et::make_input({1, 2, 5, 5}, kFloat, 11);
  const Tensor w64 = et::make_input({3, 2, 3, 3}, kDouble, 12);
  const std::string msg = error_of<TypeError>([&] { conv2d(x, w64); });
  EXPECT_NE(
      msg.find("Input type (torch.float32) and weight type (torch.float64) should be the same"),
      std::string::npos)
      << msg;
  const Tensor b64 = et::make_input({3}, kDouble, 13);
  EXPECT_THROW(conv2d(x, w64.to(kFloat), b64), TypeError);
  const Tensor none = conv2d(empty({0, 2, 5, 5}), w64.to(kFloat));
  EXPECT_EQ(none.sizes().vec(), (std::vector<int64_t>{0, 3, 3, 3}));
}
