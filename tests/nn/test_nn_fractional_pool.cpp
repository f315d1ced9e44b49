// FractionalMaxPool2d/3d against PyTorch 1.13 with the same _random_samples (so the same
// windows) on every test device: outputs, indices and input gradients for output_size and
// output_ratio, batched and unbatched; the module's buffer, printing and errors; and that drawn
// samples give windows PyTorch would give (every index inside its window's bounds).
#include <gtest/gtest.h>

#include <sstream>

#include "ember/nn.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

namespace F = ember::nn::functional;

Tensor wave(std::vector<int64_t> shape, double phase) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (arange(n, TensorOptions(kDouble)) * 0.73 + phase).sin().reshape(shape);
}

TEST(FractionalMaxPool, MatchesTorchWithTheSameSamples) {
  const Tensor x2 = wave({2, 3, 9, 11}, 0.1), s2 = wave({2, 3, 2}, 0.5).abs() * 0.99;
  const Tensor x3 = wave({1, 2, 7, 8, 9}, 0.2), s3 = wave({1, 2, 3}, 0.9).abs() * 0.99;
  auto r = TorchOracle::instance().run(
      "y2, i2 = F.fractional_max_pool2d(x2, (2, 3), output_size=(5, 4), return_indices=True, "
      "_random_samples=s2)\n(y2 * y2.detach().cos()).sum().backward()\ng2 = x2.grad\n"
      "r2 = F.fractional_max_pool2d(x2.detach(), 3, output_ratio=(0.5, 0.6), _random_samples=s2)\n"
      "y3, i3 = F.fractional_max_pool3d(x3, 2, output_size=(4, 5, 3), return_indices=True, "
      "_random_samples=s3)\ny3.sum().backward()\ng3 = x3.grad\n"
      "u2 = F.fractional_max_pool2d(x2.detach()[0], 2, output_size=4, "
      "_random_samples=s2[:1])",
      {{"x2", x2.clone().requires_grad_()},
       {"s2", s2},
       {"x3", x3.clone().requires_grad_()},
       {"s3", s3}},
      {"y2", "i2", "g2", "r2", "y3", "i3", "g3", "u2"});
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str());
    Tensor a2 = x2.to(dev).detach().requires_grad_(), a3 = x3.to(dev).detach().requires_grad_();
    auto [y2, i2] =
        F::fractional_max_pool2d_with_indices(a2, F::FractionalMaxPool2dFuncOptions({2, 3})
                                                      .output_size(ExpandingArray<2>({5, 4}))
                                                      ._random_samples(s2.to(dev)));
    (y2 * y2.detach().cos()).sum().backward();
    expect_close(y2.cpu(), r.at("y2"), 0, 0);
    EXPECT_TRUE(equal(i2.cpu(), r.at("i2")));
    expect_close(a2.grad().cpu(), r.at("g2"), 1e-12, 1e-12);
    Tensor r2 = F::fractional_max_pool2d(x2.to(dev),
                                         F::FractionalMaxPool2dFuncOptions(3)
                                             .output_ratio(ExpandingArray<2, double>({0.5, 0.6}))
                                             ._random_samples(s2.to(dev)));
    expect_close(r2.cpu(), r.at("r2"), 0, 0);
    auto [y3, i3] =
        F::fractional_max_pool3d_with_indices(a3, F::FractionalMaxPool3dFuncOptions(2)
                                                      .output_size(ExpandingArray<3>({4, 5, 3}))
                                                      ._random_samples(s3.to(dev)));
    y3.sum().backward();
    expect_close(y3.cpu(), r.at("y3"), 0, 0);
    EXPECT_TRUE(equal(i3.cpu(), r.at("i3")));
    expect_close(a3.grad().cpu(), r.at("g3"), 0, 0);
    Tensor u2 =
        F::fractional_max_pool2d(x2.to(dev)[0], F::FractionalMaxPool2dFuncOptions(2)
                                                    .output_size(ExpandingArray<2>(4))
                                                    ._random_samples(s2.narrow(0, 0, 1).to(dev)));
    expect_close(u2.cpu(), r.at("u2"), 0, 0);
  }
}

TEST(FractionalMaxPool, DrawnSamplesGiveValidWindows) {
  manual_seed(3);
  nn::FractionalMaxPool2d pool(nn::FractionalMaxPool2dOptions(3).output_size(ExpandingArray<2>(4)));
  const Tensor x = wave({4, 2, 10, 10}, 0.0);
  auto [y, idx] = pool->forward_with_indices(x);
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{4, 2, 4, 4}));
  // Each output is the value at its index, and windows advance along each dim.
  EXPECT_TRUE(
      equal(x.reshape({4, 2, 100}).gather(2, idx.reshape({4, 2, 16})).reshape({4, 2, 4, 4}), y));
  Tensor rows = idx.div(10, "floor");
  EXPECT_TRUE(rows.select(2, 3).ge(rows.select(2, 0)).all().item<bool>());
  EXPECT_EQ(rows.select(2, 3).max().item<int64_t>() <= 9, true);
}

TEST(FractionalMaxPool, ModuleBufferPrintingAndErrors) {
  const Tensor samples = full({1, 1, 2}, 0.25, kDouble);
  nn::FractionalMaxPool2d pool(
      nn::FractionalMaxPool2dOptions(2).output_size(ExpandingArray<2>(3))._random_samples(samples));
  EXPECT_EQ(pool->named_buffers().size(), 1u);
  std::ostringstream os;
  os << *pool;
  EXPECT_EQ(os.str(), "ember::nn::FractionalMaxPool2d()");
  auto message = [](auto f) { return error_of<ValueError>(f); };
  EXPECT_NE(message([] {
              nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2));
            }).find("requires specifying either an output size, or a pooling ratio"),
            std::string::npos);
  EXPECT_NE(message([] {
              nn::FractionalMaxPool2d(
                  nn::FractionalMaxPool2dOptions(2).output_ratio(ExpandingArray<2, double>(1.5)));
            }).find("output_ratio must be between 0 and 1"),
            std::string::npos);
  EXPECT_NE(message([] {
              F::fractional_max_pool2d(
                  zeros({1, 1, 4, 4}),
                  F::FractionalMaxPool2dFuncOptions(3).output_size(ExpandingArray<2>(3)));
            }).find("too large relative to input size"),
            std::string::npos);
  EXPECT_NE(message([&] {
              F::fractional_max_pool2d(zeros({2, 1, 6, 6}), F::FractionalMaxPool2dFuncOptions(2)
                                                                .output_size(ExpandingArray<2>(3))
                                                                ._random_samples(samples));
            }).find("expected _random_samples of shape [2, 1, 2]"),
            std::string::npos);
}

}  // namespace
}  // namespace ember::testing
