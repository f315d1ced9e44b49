// F::affine_grid and F::grid_sample against PyTorch 1.13 in float64 on every test device: every
// mode, padding mode and align_corners value, 4-D and 5-D, outputs and the gradients of input,
// grid and theta; bad input with PyTorch's messages.
#include <gtest/gtest.h>

#include "ember/nn/functional.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

namespace F = ember::nn::functional;

int64_t numel_of_shape(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

// Values spread over [-1.3, 1.3] so that some samples fall outside the image.
Tensor spread(std::vector<int64_t> shape, double phase) {
  const int64_t n = numel_of_shape(shape);
  return (arange(n, TensorOptions(kDouble)) * 0.61 + phase).sin().mul(1.3).reshape(shape);
}

struct Case {
  const char* mode;
  const char* padding;
  bool align;
};

F::GridSampleFuncOptions options_of(const Case& c) {
  F::GridSampleFuncOptions o;
  if (std::string(c.mode) == "nearest") o.mode(ember::kNearest);
  if (std::string(c.padding) == "border") o.padding_mode(ember::kBorder);
  if (std::string(c.padding) == "reflection") o.padding_mode(ember::kReflection);
  return o.align_corners(c.align);
}

void check_grid_sample(const Case& c, std::vector<int64_t> in_shape,
                       std::vector<int64_t> grid_shape) {
  const Tensor x0 = spread(in_shape, 0.2), g0 = spread(grid_shape, 1.1);
  const std::string code = std::string("y = F.grid_sample(x, g, mode='") + c.mode +
                           "', padding_mode='" + c.padding +
                           "', align_corners=" + (c.align ? "True" : "False") +
                           ")\n(y * y.detach().cos()).sum().backward()\n"
                           "gx, gg = x.grad, g.grad";
  auto r = TorchOracle::instance().run(
      code, {{"x", x0.clone().requires_grad_()}, {"g", g0.clone().requires_grad_()}},
      {"y", "gx", "gg"});
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str() + " " + c.mode + " " + c.padding + (c.align ? " align" : ""));
    Tensor x = x0.to(dev).detach().requires_grad_(), g = g0.to(dev).detach().requires_grad_();
    Tensor y = F::grid_sample(x, g, options_of(c));
    (y * y.detach().cos()).sum().backward();
    expect_close(y.cpu(), r.at("y"), 1e-9, 1e-9);
    expect_close(x.grad().cpu(), r.at("gx"), 1e-9, 1e-9);
    // Nearest sampling has no grid gradient (zeros in PyTorch, none recorded here).
    Tensor gg = g.grad().defined() ? g.grad().cpu() : zeros_like(r.at("gg"));
    expect_close(gg, r.at("gg"), 1e-7, 1e-7);
  }
}

TEST(GridSample, EveryModePaddingAndAlignmentIn2D) {
  for (const char* mode : {"bilinear", "nearest"}) {
    for (const char* padding : {"zeros", "border", "reflection"}) {
      for (bool align : {false, true})
        check_grid_sample({mode, padding, align}, {2, 3, 4, 5}, {2, 3, 6, 2});
    }
  }
}

TEST(GridSample, VolumesIn3D) {
  for (const char* padding : {"zeros", "border", "reflection"}) {
    check_grid_sample({"bilinear", padding, false}, {1, 2, 3, 4, 3}, {1, 2, 3, 2, 3});
  }
  check_grid_sample({"nearest", "zeros", true}, {1, 2, 3, 4, 3}, {1, 2, 3, 2, 3});
}

TEST(AffineGrid, MatchesTorchIn2DAnd3DWithGradients) {
  for (bool align : {false, true}) {
    const Tensor t2 = spread({2, 2, 3}, 0.4), t3 = spread({1, 3, 4}, 0.9);
    const std::string a = align ? "True" : "False";
    auto r = TorchOracle::instance().run(
        "g2 = F.affine_grid(t2, [2, 3, 4, 5], align_corners=" + a +
            ")\ng3 = F.affine_grid(t3, [1, 1, 2, 3, 4], align_corners=" + a +
            ")\n(g2.sin().sum() + g3.cos().sum()).backward()\ng2t, g3t = t2.grad, t3.grad",
        {{"t2", t2.clone().requires_grad_()}, {"t3", t3.clone().requires_grad_()}},
        {"g2", "g3", "g2t", "g3t"});
    for (const Device dev : test_devices()) {
      SCOPED_TRACE(dev.str());
      Tensor a2 = t2.to(dev).detach().requires_grad_(), a3 = t3.to(dev).detach().requires_grad_();
      Tensor g2 = F::affine_grid(a2, {2, 3, 4, 5}, align);
      Tensor g3 = F::affine_grid(a3, {1, 1, 2, 3, 4}, align);
      (g2.sin().sum() + g3.cos().sum()).backward();
      expect_close(g2.cpu(), r.at("g2"), 1e-12, 1e-12);
      expect_close(g3.cpu(), r.at("g3"), 1e-12, 1e-12);
      expect_close(a2.grad().cpu(), r.at("g2t"), 1e-10, 1e-10);
      expect_close(a3.grad().cpu(), r.at("g3t"), 1e-10, 1e-10);
    }
  }
}

TEST(GridSample, SpatialTransformerRoundTripIsTheIdentity) {
  // The identity affine map with align_corners samples every pixel centre exactly.
  const Tensor image = spread({1, 2, 5, 6}, 0.3);
  const Tensor theta = tensor({1.0, 0.0, 0.0, 0.0, 1.0, 0.0}).to(kDouble).reshape({1, 2, 3});
  for (const Device dev : test_devices()) {
    Tensor grid = F::affine_grid(theta.to(dev), {1, 2, 5, 6}, true);
    Tensor out =
        F::grid_sample(image.to(dev), grid, F::GridSampleFuncOptions().align_corners(true));
    expect_close(out.cpu(), image, 1e-12, 1e-12);
  }
}

TEST(GridSample, BadInputGetsPyTorchsMessages) {
  auto message = [](auto f) { return error_of<Error>(f); };
  EXPECT_NE(message([] {
              F::grid_sample(zeros({1, 1, 3, 3}), zeros({1, 2, 2}));
            })
                .find("grid_sampler(): expected 4D or 5D input and grid with same number of "
                      "dimensions, but got input with sizes [1, 1, 3, 3] and grid with sizes "
                      "[1, 2, 2]"),
            std::string::npos);
  EXPECT_NE(message([] {
              F::grid_sample(zeros({2, 1, 3, 3}), zeros({1, 2, 2, 2}));
            }).find("expected grid and input to have same batch size"),
            std::string::npos);
  EXPECT_NE(message([] {
              F::grid_sample(zeros({1, 1, 3, 3}), zeros({1, 2, 2, 3}));
            }).find("expected grid to have size 2 in last dimension"),
            std::string::npos);
  EXPECT_NE(message([] {
              F::grid_sample(zeros({1, 1, 3, 3}), zeros({1, 2, 2, 2}, kDouble));
            }).find("expected input and grid to have same dtype"),
            std::string::npos);
  EXPECT_NE(message([] {
              F::affine_grid(zeros({1, 2, 3}), {1, 1, 4});
            }).find("affine_grid only supports 4D and 5D sizes"),
            std::string::npos);
  EXPECT_NE(message([] {
              F::affine_grid(zeros({1, 3, 3}), {1, 1, 4, 4});
            })
                .find("Expected a batch of 2D affine matrices of shape Nx2x3 for size [1, 1, 4, "
                      "4]. Got [1, 3, 3]."),
            std::string::npos);
  EXPECT_NE(message([] {
              F::affine_grid(zeros({1, 2, 3}, kLong), {1, 1, 4, 4});
            }).find("Expected theta to have floating point type"),
            std::string::npos);
}

}  // namespace
}  // namespace ember::testing
