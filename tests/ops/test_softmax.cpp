// softmax and log_softmax (one backend kernel each way) against PyTorch: every dim of a 3-D
// input, extreme values, NaN and -inf rows, 16-bit dtypes, gradients, and double backward,
// which goes through the composite gradient rule. The shared row math (kernel_math/softmax_row.h)
// that the CUDA kernels use is checked directly too.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "kernel_math/softmax_row.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::expect_close;
using ember::testing::torch_run;

TEST(Softmax, EveryDimForwardAndBackwardMatchPyTorch) {
  for (bool log_space : {false, true}) {
    const std::string fn = log_space ? "torch.log_softmax" : "torch.softmax";
    for (int64_t dim : {0, 1, 2, -1}) {
      manual_seed(10 + dim);
      Tensor x = (randn({3, 5, 7}, kDouble) * 4).requires_grad_();
      Tensor y = log_space ? log_softmax(x, dim) : softmax(x, dim);
      Tensor gy = randn(y.sizes(), kDouble);
      y.backward(gy);
      auto r = torch_run("x.requires_grad_()\ny = " + fn + "(x, " + std::to_string(dim) +
                             ")\ny.backward(gy)\ng = x.grad",
                         {{"x", x.detach()}, {"gy", gy}}, {"y", "g"});
      const std::string ctx = fn + " dim " + std::to_string(dim);
      expect_close(y, r.at("y"), 1e-12, 1e-12, ctx);
      expect_close(x.grad(), r.at("g"), 1e-12, 1e-12, ctx + " gradient");
    }
  }
}

TEST(Softmax, ExtremeValuesNaNAndInfinity) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = tensor({{1000.0, 1001.0, 999.0},     // would overflow without the max shift
                     {-1000.0, -1001.0, -999.0},  // would underflow to 0/0
                     {std::nan(""), 1.0, 2.0},    // NaN spreads to the row
                     {-inf, 0.0, 1.0},            // -inf gets probability 0
                     {-inf, -inf, -inf}},         // all -inf: NaN, as in PyTorch
                    kDouble);
  for (ScalarType dt : {kDouble, kFloat}) {
    Tensor xd = x.to(dt);
    auto r =
        torch_run("y = torch.softmax(x, 1)\nz = torch.log_softmax(x, 1)", {{"x", xd}}, {"y", "z"});
    expect_close(softmax(xd, 1), r.at("y"), 1e-6, 1e-12, std::string("softmax ") + to_string(dt));
    expect_close(log_softmax(xd, 1), r.at("z"), 1e-6, 1e-12,
                 std::string("log_softmax ") + to_string(dt));
  }
}

TEST(Softmax, SixteenBitDtypesComputeInFloat) {
  manual_seed(3);
  Tensor x = randn({4, 33}) * 3;
  for (ScalarType dt : {kHalf, kBFloat16}) {
    Tensor xh = x.to(dt);
    auto r = torch_run(
        "y = torch.softmax(x.float(), -1).to(x.dtype)\n"
        "z = torch.log_softmax(x.float(), -1).to(x.dtype)",
        {{"x", xh}}, {"y", "z"});
    Tensor y = softmax(xh, -1), z = log_softmax(xh, -1);
    ASSERT_EQ(y.dtype(), dt);
    // Computed in float and rounded once: equal to PyTorch's float result rounded.
    expect_close(y, r.at("y"), 0, 0, std::string("softmax ") + to_string(dt));
    expect_close(z, r.at("z"), 0, 0, std::string("log_softmax ") + to_string(dt));
    // The dtype argument casts first, as torch.softmax(x, dim, dtype=...) does.
    EXPECT_EQ(softmax(xh, -1, kFloat).dtype(), kFloat);
  }
}

TEST(Softmax, DoubleBackwardMatchesPyTorch) {
  for (bool log_space : {false, true}) {
    manual_seed(21);
    Tensor x = randn({4, 6}, kDouble).requires_grad_();
    Tensor w = randn({4, 6}, kDouble);
    Tensor y = log_space ? log_softmax(x, 1) : softmax(x, 1);
    auto g = autograd::grad({(y * w).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
    (g[0] * g[0]).sum().backward();
    const std::string fn = log_space ? "torch.log_softmax" : "torch.softmax";
    auto r = torch_run("x.requires_grad_()\ny = " + fn +
                           "(x, 1)\n"
                           "g, = torch.autograd.grad((y * w).sum(), x, create_graph=True)\n"
                           "(g * g).sum().backward()\ngg = x.grad",
                       {{"x", x.detach()}, {"w", w}}, {"g", "gg"});
    expect_close(g[0], r.at("g"), 1e-12, 1e-12, fn + " first order");
    expect_close(x.grad(), r.at("gg"), 1e-10, 1e-12, fn + " second order");
  }
}

TEST(Softmax, SharedRowMathOnStridedRows) {
  // softmax_row / softmax_backward_row with a stride, as the CUDA kernel for a non-last dim
  // runs them, against the tensor API on the transposed layout.
  manual_seed(8);
  Tensor x = randn({6, 4}, kDouble), g = randn({6, 4}, kDouble);
  for (bool log_space : {false, true}) {
    Tensor y = empty({6, 4}, kDouble), gx = empty({6, 4}, kDouble);
    for (int64_t col = 0; col < 4; ++col) {
      softmax_row<double, double>(y.data_ptr<double>() + col, x.data_ptr<double>() + col, 6, 4,
                                  log_space);
      softmax_backward_row<double, double>(gx.data_ptr<double>() + col, g.data_ptr<double>() + col,
                                           y.data_ptr<double>() + col, 6, 4, log_space);
    }
    Tensor xr = x.detach().requires_grad_();
    Tensor expected = log_space ? log_softmax(xr, 0) : softmax(xr, 0);
    expected.backward(g);
    expect_close(y, expected, 1e-14, 1e-14, log_space ? "log_softmax rows" : "softmax rows");
    expect_close(gx, xr.grad(), 1e-14, 1e-14, log_space ? "log_softmax grads" : "softmax grads");
  }
}
