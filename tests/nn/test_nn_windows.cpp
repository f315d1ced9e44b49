// Sliding-window ops (im2col, col2im, max pooling; their 3-D forms) beyond the layer parity
// tests: max-pool indices with ties and NaNs (2-D and 3-D), fold, convolution double backward
// against PyTorch, the shared window math that the CUDA kernels use checked against the CPU
// kernels, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "kernel_math/window.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::torch_run;
namespace F = ember::nn::functional;

namespace {

std::string pair(int64_t a, int64_t b) {
  return "(" + std::to_string(a) + ", " + std::to_string(b) + ")";
}

struct PoolCase {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  bool ceil;
};

const std::vector<PoolCase> kPoolCases = {
    {2, 2, 2, 2, 0, 0, 1, 1, false}, {3, 3, 2, 2, 1, 1, 1, 1, false},
    {3, 3, 2, 2, 1, 1, 1, 1, true},  {2, 3, 1, 2, 1, 1, 2, 1, false},
    {3, 2, 3, 1, 0, 1, 1, 2, true},  {1, 1, 2, 2, 0, 0, 1, 1, false},
};

// Small integers, so that windows hold ties, with a few NaNs (and -inf) sprinkled in.
Tensor tie_input(std::vector<int64_t> shape, uint64_t seed, bool with_nan) {
  manual_seed(seed);
  Tensor x = (randn(shape, kDouble) * 1.5).to(kLong).to(kDouble);  // truncated: many ties
  if (with_nan) {
    Tensor flat = x.view({-1});
    for (int64_t i = 3; i < flat.numel(); i += 17) flat[i].fill_(std::nan(""));
    for (int64_t i = 5; i < flat.numel(); i += 23) {
      flat[i].fill_(-std::numeric_limits<double>::infinity());
    }
  }
  return x;
}

}  // namespace

TEST(NnWindows, MaxPoolIndicesMatchPyTorchWithTiesAndNaN) {
  for (size_t i = 0; i < kPoolCases.size(); ++i) {
    const PoolCase& c = kPoolCases[i];
    for (bool with_nan : {false, true}) {
      Tensor x = tie_input({2, 3, 9, 8}, 100 + i, with_nan);
      auto [values, indices] = max_pool2d_with_indices(
          x, {c.kh, c.kw}, ExpandingArray<2>({c.sh, c.sw}), {c.ph, c.pw}, {c.dh, c.dw}, c.ceil);
      auto r = torch_run("y, idx = F.max_pool2d(x, " + pair(c.kh, c.kw) + ", " + pair(c.sh, c.sw) +
                             ", " + pair(c.ph, c.pw) + ", " + pair(c.dh, c.dw) + ", ceil_mode=" +
                             (c.ceil ? "True" : "False") + ", return_indices=True)",
                         {{"x", x}}, {"y", "idx"});
      const std::string ctx = "case " + std::to_string(i) + (with_nan ? " with NaN" : "");
      expect_close(values, r.at("y"), 0, 0, ctx + ": values");
      ASSERT_EQ(indices.dtype(), kLong) << ctx;
      EXPECT_TRUE(equal(indices, r.at("idx"))) << ctx << ": indices differ";
    }
  }
}

TEST(NnWindows, MaxPoolGradientGoesToThePyTorchIndexOnTies) {
  Tensor x = tie_input({2, 2, 8, 8}, 7, false).requires_grad_();
  auto m = nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2).padding(1));
  auto [y, idx] = m->forward_with_indices(x);
  Tensor gy = randn(y.sizes(), kDouble);
  y.backward(gy);
  auto r = torch_run(
      "x.requires_grad_()\ny, idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)\n"
      "y.backward(gy)\ngx = x.grad",
      {{"x", x.detach()}, {"gy", gy}}, {"y", "idx", "gx"});
  expect_close(y, r.at("y"), 0, 0, "values");
  EXPECT_TRUE(equal(idx, r.at("idx")));
  expect_close(x.grad(), r.at("gx"), 1e-12, 1e-12, "gradient");
}

TEST(NnWindows, Col2imMatchesFoldForwardAndBackward) {
  struct Case {
    int64_t C, H, W, kh, kw, dh, dw, ph, pw, sh, sw;
  };
  const std::vector<Case> cases = {
      {2, 5, 6, 2, 3, 1, 1, 1, 0, 2, 1},
      {3, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 8, 6, 2, 2, 2, 1, 0, 1, 1, 2},
      {2, 4, 4, 2, 2, 1, 1, 0, 0, 2, 2},  // no overlap: fold is a plain rearrangement
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const int64_t oh = (c.H + 2 * c.ph - c.dh * (c.kh - 1) - 1) / c.sh + 1;
    const int64_t ow = (c.W + 2 * c.pw - c.dw * (c.kw - 1) - 1) / c.sw + 1;
    manual_seed(200 + i);
    Tensor cols = randn({2, c.C * c.kh * c.kw, oh * ow}, kDouble).requires_grad_();
    Tensor y = col2im(cols, {c.H, c.W}, {c.kh, c.kw}, {c.dh, c.dw}, {c.ph, c.pw}, {c.sh, c.sw});
    Tensor gy = randn(y.sizes(), kDouble);
    y.backward(gy);
    auto r = torch_run("cols.requires_grad_()\ny = F.fold(cols, " + pair(c.H, c.W) + ", " +
                           pair(c.kh, c.kw) + ", dilation=" + pair(c.dh, c.dw) +
                           ", padding=" + pair(c.ph, c.pw) + ", stride=" + pair(c.sh, c.sw) +
                           ")\ny.backward(gy)\ng = cols.grad",
                       {{"cols", cols.detach()}, {"gy", gy}}, {"y", "g"});
    const std::string ctx = "fold case " + std::to_string(i);
    expect_close(y, r.at("y"), 1e-12, 1e-12, ctx + ": output");
    expect_close(cols.grad(), r.at("g"), 1e-12, 1e-12, ctx + ": gradient");
    // The gradient of fold is unfold with the same geometry.
    Tensor back = im2col(gy, {c.kh, c.kw}, {c.dh, c.dw}, {c.ph, c.pw}, {c.sh, c.sw});
    expect_close(cols.grad(), back, 0, 0, ctx + ": gradient is im2col");
  }
}

TEST(NnWindows, ConvolutionDoubleBackwardMatchesPyTorch) {
  manual_seed(5);
  Tensor x = randn({2, 3, 6, 5}, kDouble).requires_grad_();
  Tensor w = randn({4, 3, 3, 3}, kDouble).requires_grad_();
  Tensor b = randn({4}, kDouble).requires_grad_();
  Tensor y = conv2d(x, w, b, 2, 1);
  auto grads = autograd::grad({(y * y).sum()}, {x, w}, {}, std::nullopt, /*create_graph=*/true);
  ((grads[0] * grads[0]).sum() + (grads[1] * grads[1]).sum()).backward();
  auto r = torch_run(
      "x.requires_grad_(); w.requires_grad_(); b.requires_grad_()\n"
      "y = F.conv2d(x, w, b, stride=2, padding=1)\n"
      "gx, gw = torch.autograd.grad((y * y).sum(), (x, w), create_graph=True)\n"
      "((gx * gx).sum() + (gw * gw).sum()).backward()\n"
      "ggx, ggw, ggb = x.grad, w.grad, b.grad",
      {{"x", x.detach()}, {"w", w.detach()}, {"b", b.detach()}}, {"gx", "gw", "ggx", "ggw", "ggb"});
  expect_close(grads[0], r.at("gx"), 1e-10, 1e-10, "dL/dx");
  expect_close(grads[1], r.at("gw"), 1e-10, 1e-10, "dL/dw");
  expect_close(x.grad(), r.at("ggx"), 1e-10, 1e-10, "second order, x");
  expect_close(w.grad(), r.at("ggw"), 1e-10, 1e-10, "second order, w");
  expect_close(b.grad(), r.at("ggb"), 1e-10, 1e-10, "second order, b");
}

TEST(NnWindows, MaxPoolDoubleBackwardMatchesPyTorch) {
  manual_seed(6);
  Tensor x = randn({2, 2, 7, 6}, kDouble).requires_grad_();
  Tensor y = max_pool2d(x, 3, 2, 1);
  auto g = autograd::grad({(y * y * y).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  (g[0] * g[0]).sum().backward();
  auto r = torch_run(
      "x.requires_grad_()\ny = F.max_pool2d(x, 3, 2, 1)\n"
      "g, = torch.autograd.grad((y * y * y).sum(), x, create_graph=True)\n"
      "(g * g).sum().backward()\ngg = x.grad",
      {{"x", x.detach()}}, {"g", "gg"});
  expect_close(g[0], r.at("g"), 1e-12, 1e-12, "first order");
  expect_close(x.grad(), r.at("gg"), 1e-12, 1e-12, "second order");
}

// The CUDA kernels compute col2im as a gather (col2im_sum per input element) and max pooling
// with window_argmax per output; here the same functions run on the CPU against the CPU kernels.
TEST(NnWindows, SharedWindowMathAgreesWithTheCpuKernels) {
  struct Case {
    int64_t C, H, W, kh, kw, sh, sw, ph, pw, dh, dw;
  };
  const std::vector<Case> cases = {
      {2, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1},
      {3, 7, 8, 2, 3, 2, 1, 1, 0, 2, 1},
      {1, 9, 9, 3, 2, 3, 2, 1, 1, 1, 2},
      {2, 4, 6, 1, 1, 1, 2, 0, 0, 1, 1},
  };
  for (size_t n = 0; n < cases.size(); ++n) {
    const Case& c = cases[n];
    Window g{c.C, c.H, c.W, c.kh, c.kw, c.sh, c.sw, c.ph, c.pw, c.dh, c.dw, 0, 0};
    g.out_h = (c.H + 2 * c.ph - c.dh * (c.kh - 1) - 1) / c.sh + 1;
    g.out_w = (c.W + 2 * c.pw - c.dw * (c.kw - 1) - 1) / c.sw + 1;
    manual_seed(300 + n);
    Tensor cols = randn({1, g.columns(), g.positions()}, kDouble);
    Tensor folded =
        col2im(cols, {c.H, c.W}, {c.kh, c.kw}, {c.dh, c.dw}, {c.ph, c.pw}, {c.sh, c.sw});
    const double* cp = cols.data_ptr<double>();
    for (int64_t ch = 0; ch < c.C; ++ch) {
      for (int64_t h = 0; h < c.H; ++h) {
        for (int64_t w = 0; w < c.W; ++w) {
          EXPECT_NEAR((col2im_sum<double, double>(g, cp, ch, 0, h, w)),
                      folded[0][ch][h][w].item<double>(), 1e-12)
              << "case " << n << " at (" << ch << ", " << h << ", " << w << ")";
        }
      }
    }
    if (c.ph * 2 > c.kh || c.pw * 2 > c.kw) continue;  // not a valid pooling geometry
    Tensor x = tie_input({1, 1, c.H, c.W}, 400 + n, true);
    Window p = g;
    p.channels = 1;
    auto [values, indices] = max_pool2d_with_indices(
        x, {c.kh, c.kw}, ExpandingArray<2>({c.sh, c.sw}), {c.ph, c.pw}, {c.dh, c.dw});
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        EXPECT_EQ((window_argmax<double, double>(p, x.data_ptr<double>(), 0, oh, ow)),
                  indices[0][0][oh][ow].item<int64_t>())
            << "case " << n << " at (" << oh << ", " << ow << ")";
      }
    }
  }
}

// The same over volumes: col2im_sum against the CPU's col2vol, reached through conv_transpose3d
// with an identity weight (its columns are then the input itself), and window_argmax against the
// CPU's max_pool3d indices.
TEST(NnWindows, SharedVolumeWindowMathAgreesWithTheCpuKernels) {
  struct Case {
    int64_t C, D, H, W, k[3], s[3], p[3], d[3];
  };
  const std::vector<Case> cases = {
      {2, 4, 5, 4, {3, 3, 2}, {1, 1, 2}, {1, 1, 0}, {1, 1, 1}},
      {1, 7, 6, 8, {2, 3, 3}, {2, 1, 3}, {1, 0, 1}, {2, 1, 2}},
      {2, 5, 7, 6, {3, 2, 3}, {3, 2, 1}, {1, 1, 1}, {1, 2, 1}},
  };
  for (size_t n = 0; n < cases.size(); ++n) {
    const Case& c = cases[n];
    const int64_t in[3] = {c.D, c.H, c.W};
    Window g{c.C, c.H, c.W, c.k[1], c.k[2], c.s[1], c.s[2], c.p[1], c.p[2], c.d[1], c.d[2], 0, 0};
    g.depth = c.D;
    g.kd = c.k[0];
    g.sd = c.s[0];
    g.pd = c.p[0];
    g.dd = c.d[0];
    int64_t out[3], output_padding[3];
    for (int i = 0; i < 3; ++i) {
      const int64_t span = in[i] + 2 * c.p[i] - c.d[i] * (c.k[i] - 1) - 1;
      out[i] = span / c.s[i] + 1;
      output_padding[i] = span % c.s[i];  // the rows past the last window
    }
    g.out_d = out[0];
    g.out_h = out[1];
    g.out_w = out[2];
    const int64_t K = g.columns(), window = c.k[0] * c.k[1] * c.k[2];
    manual_seed(500 + n);
    const Tensor cols = randn({1, K, g.positions()}, kDouble);
    const Tensor identity = eye(K, TensorOptions(kDouble)).view({K, c.C, c.k[0], c.k[1], c.k[2]});
    ASSERT_EQ(K, c.C * window);
    const Tensor folded = conv_transpose3d(
        cols.view({1, K, out[0], out[1], out[2]}), identity, {}, {c.s[0], c.s[1], c.s[2]},
        {c.p[0], c.p[1], c.p[2]}, {output_padding[0], output_padding[1], output_padding[2]}, 1,
        {c.d[0], c.d[1], c.d[2]});
    ASSERT_EQ(folded.sizes(), IntArrayRef({1, c.C, c.D, c.H, c.W}));
    const double* cp = cols.data_ptr<double>();
    const double* fp = folded.contiguous().data_ptr<double>();
    for (int64_t e = 0; e < c.C * g.plane(); ++e) {
      const int64_t w = e % c.W, h = (e / c.W) % c.H, d = (e / (c.W * c.H)) % c.D;
      const int64_t ch = e / g.plane();
      EXPECT_NEAR((col2im_sum<double, double>(g, cp, ch, d, h, w)), fp[e], 1e-12)
          << "case " << n << " at (" << ch << ", " << d << ", " << h << ", " << w << ")";
    }
    const Tensor x = tie_input({1, 1, c.D, c.H, c.W}, 600 + n, true);
    Window p = g;
    p.channels = 1;
    const Tensor indices = std::get<1>(max_pool3d_with_indices(
        x, {c.k[0], c.k[1], c.k[2]}, ExpandingArray<3>({c.s[0], c.s[1], c.s[2]}),
        {c.p[0], c.p[1], c.p[2]}, {c.d[0], c.d[1], c.d[2]}));
    const int64_t* ip = indices.contiguous().data_ptr<int64_t>();
    for (int64_t l = 0; l < p.positions(); ++l) {
      const int64_t od = l / (p.out_h * p.out_w), oh = (l / p.out_w) % p.out_h, ow = l % p.out_w;
      EXPECT_EQ((window_argmax<double, double>(p, x.data_ptr<double>(), od, oh, ow)), ip[l])
          << "case " << n << " at (" << od << ", " << oh << ", " << ow << ")";
    }
  }
}

// Ties, NaN and -inf over volumes: the index PyTorch's max_pool3d picks, and the gradient going
// to it.
TEST(NnWindows, MaxPool3dIndicesMatchPyTorchWithTiesAndNaN) {
  for (int i = 0; i < 3; ++i) {
    const Tensor x = tie_input({2, 2, 5, 6, 7}, 700 + i, i > 0);
    const int64_t k = 2 + i % 2, s = 1 + i, p = i == 2 ? 1 : 0;
    auto [values, indices] = max_pool3d_with_indices(x, k, ExpandingArray<3>(s), p, 1, i == 1);
    auto r = torch_run("v, i = F.max_pool3d(x, " + std::to_string(k) + ", " + std::to_string(s) +
                           ", " + std::to_string(p) + ", ceil_mode=" + (i == 1 ? "True" : "False") +
                           ", return_indices=True)",
                       {{"x", x}}, {"v", "i"});
    expect_close(values, r.at("v"), 1e-12, 1e-12, "values " + std::to_string(i));
    expect_close(indices, r.at("i"), 0, 0, "indices " + std::to_string(i));
  }
}

TEST(NnWindows, ConvolutionOfHalfPrecisionTracksFloat) {
  manual_seed(9);
  Tensor x = randn({2, 3, 8, 8}), w = randn({4, 3, 3, 3}) * 0.2, b = randn({4});
  Tensor expected = conv2d(x, w, b, 1, 1);
  for (ScalarType dt : {kHalf, kBFloat16}) {
    Tensor y = conv2d(x.to(dt), w.to(dt), b.to(dt), 1, 1);
    ASSERT_EQ(y.dtype(), dt);
    expect_close(y.to(kFloat), expected, 3e-2, 3e-2, to_string(dt));
  }
}

TEST(NnWindows, BadInputIsAClearError) {
  Tensor x = randn({1, 2, 5, 5});
  EXPECT_TRUE(
      contains(error_of([&] {
                 conv2d(x, randn({3, 2, 3, 3}, kDouble));
               }),
               "Input type (torch.float32) and weight type (torch.float64) should be the same"));
  EXPECT_TRUE(contains(error_of([&] {
                         conv2d(x, randn({3, 2, 3, 3}), randn({3}, kDouble));
                       }),
                       "bias type (torch.float64)"));
  EXPECT_TRUE(contains(error_of([&] {
                         conv2d(x.to(kLong), randn({3, 2, 3, 3}).to(kLong));
                       }),
                       "expected a floating point input, got torch.int64"));
  EXPECT_TRUE(contains(error_of([&] { max_pool2d_with_indices(x.to(kInt), 2); }),
                       "expected a floating point input, got torch.int32"));
  // col2im: the column count must split into kernel windows, and L must match the geometry.
  EXPECT_TRUE(contains(error_of([&] {
                         col2im(randn({1, 7, 16}), {5, 5}, 2);
                       }),
                       "divisible by the product of kernel_size (4), but got input.size(1)=7"));
  EXPECT_TRUE(contains(error_of([&] {
                         col2im(randn({1, 8, 15}), {5, 5}, 2);
                       }),
                       "calculated number of sliding blocks 4 * 4 = 16, but got input.size(2)=15"));
  EXPECT_TRUE(contains(error_of([&] {
                         col2im(randn({8, 16}), {5, 5}, 2);
                       }),
                       "expected a 3-D input [N, C * kh * kw, L], got shape [8, 16]"));
  EXPECT_TRUE(contains(error_of([&] {
                         col2im(randn({1, 8, 16}), {5, 5}, 2, 1, -1);
                       }),
                       "padding must be non-negative"));
  EXPECT_TRUE(contains(error_of([&] {
                         col2im(randn({1, 8, 16}), {5, 5}, 2, 0);
                       }),
                       "dilation must be greater than zero"));
  // After the errors the ops still work.
  EXPECT_EQ(col2im(randn({1, 8, 16}), {5, 5}, 2).sizes(), IntArrayRef({1, 2, 5, 5}));
}
