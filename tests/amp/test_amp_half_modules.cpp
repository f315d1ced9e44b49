// Whole models in float16 and bfloat16 (Module::to(kHalf / kBFloat16), PyTorch's model.half() /
// model.bfloat16()) on every device: parameters and floating buffers take the dtype, integer
// buffers keep theirs; forward and backward run in that dtype and agree with the float32 model
// on the same (rounded) weights; optimizers step 16-bit parameters; the model converts back.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::expect_close;
using ember::testing::test_devices;
using ember::testing::torch_run;
namespace F = ember::nn::functional;

namespace {

nn::Sequential small_cnn() {
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(2, 4, 3).padding(1)), nn::BatchNorm2d(4),
                        nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(), nn::Linear(4 * 3 * 3, 8),
                        nn::LayerNorm(nn::LayerNormOptions({8})), nn::GELU(), nn::Linear(8, 3));
}

// A few ulps of the dtype per layer the error passes through.
double tolerance(ScalarType dt) {
  return dt == kHalf ? 2e-2 : 1e-1;
}

TEST(HalfModules, WholeModelInSixteenBitsMatchesFloat32) {
  for (Device device : test_devices()) {
    for (ScalarType dt : {kHalf, kBFloat16}) {
      const std::string ctx = device.str() + " " + to_string(dt);
      manual_seed(4);
      auto model = small_cnn();
      model->to(device, dt);
      for (const auto& p : model->named_parameters()) {
        EXPECT_EQ(p.value().dtype(), dt) << ctx << " " << p.key();
        EXPECT_EQ(p.value().device(), device) << ctx << " " << p.key();
      }
      // Every buffer, the batch counter included, as libtorch's C++ Module::to converts them.
      for (const auto& b : model->named_buffers()) {
        EXPECT_EQ(b.value().dtype(), dt) << ctx << " " << b.key();
      }
      // The float32 twin holds the same (rounded) values.
      auto twin = small_cnn();
      twin->to(device);
      {
        NoGradGuard no_grad;
        auto src = model->parameters(), dst = twin->parameters();
        for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
      }
      Tensor x = randn({5, 2, 6, 6}).to(dt);
      Tensor y16 = model->forward(x.to(device));
      Tensor y32 = twin->forward(x.to(device, kFloat));
      ASSERT_EQ(y16.dtype(), dt) << ctx;
      const double tol = tolerance(dt);
      expect_close(y16.cpu().to(kFloat), y32.cpu(), tol, tol, ctx + " forward");

      Tensor target = tensor({0L, 1L, 2L, 0L, 1L}).to(device);
      F::cross_entropy(y16, target).backward();
      F::cross_entropy(y32, target).backward();
      auto p16 = model->named_parameters(), p32 = twin->named_parameters();
      for (size_t i = 0; i < p16.size(); ++i) {
        const Tensor& g = p16[i].value().grad();
        ASSERT_TRUE(g.defined()) << ctx << " " << p16[i].key();
        EXPECT_EQ(g.dtype(), dt) << ctx << " " << p16[i].key();
        expect_close(g.cpu().to(kFloat), p32[i].value().grad().cpu(), tol, tol,
                     ctx + " gradient of " + p16[i].key());
      }
      // Optimizers update 16-bit parameters in place, in their dtype.
      optim::Adam opt(model->parameters(), optim::AdamOptions(1e-2));
      Tensor before = model->parameters()[0].detach().clone();
      opt.step();
      EXPECT_EQ(model->parameters()[0].dtype(), dt) << ctx;
      EXPECT_FALSE(equal(model->parameters()[0].detach(), before)) << ctx;
      // And back to float32.
      model->to(kFloat);
      for (const Tensor& p : model->parameters()) EXPECT_EQ(p.dtype(), kFloat) << ctx;
      EXPECT_EQ(model->forward(x.to(device, kFloat)).dtype(), kFloat) << ctx;
    }
  }
}

// model.half() training converges on every device (plain SGD: GradScaler refuses float16
// gradients, as PyTorch does; autocast with float32 weights is the way to use it).
TEST(HalfModules, BFloat16ModelTrains) {
  for (Device device : test_devices()) {
    manual_seed(9);
    Tensor x = randn({64, 6});
    Tensor labels = (x.narrow(1, 0, 1).squeeze(1) > 0).to(kLong).to(device);
    auto model = nn::Sequential(nn::Linear(6, 16), nn::ReLU(), nn::Linear(16, 2));
    model->to(device, kBFloat16);
    optim::SGD opt(model->parameters(), optim::SGDOptions(0.2).momentum(0.9));
    Tensor xb = x.to(device, kBFloat16);
    double first = 0, last = 0;
    for (int it = 0; it < 60; ++it) {
      opt.zero_grad();
      Tensor loss = F::cross_entropy(model->forward(xb), labels);
      EXPECT_EQ(loss.dtype(), kBFloat16);
      if (it == 0) first = loss.item<double>();
      last = loss.item<double>();
      loss.backward();
      opt.step();
    }
    EXPECT_LT(last, 0.5 * first) << device << ": " << first << " -> " << last;
  }
}

// The 2x2 max pooling of autocast CNNs compares 16-bit values as float32: the same maxima and
// the same indices as PyTorch on ties and NaN, the NaN's bits kept.
TEST(HalfModules, SixteenBitMaxPoolPicksPyTorchsIndices) {
  manual_seed(12);
  Tensor x = randint(-2, 3, {2, 3, 6, 8}).to(kFloat);  // many ties
  x.view({-1}).narrow(0, 5, 1).fill_(std::nan(""));
  for (ScalarType dt : {kHalf, kBFloat16}) {
    auto r = torch_run("v, i = F.max_pool2d(x.float(), 2, return_indices=True)\ny = v.to(x.dtype)",
                       {{"x", x.to(dt)}}, {"y", "i"});
    for (Device device : test_devices()) {
      auto [v, i] = max_pool2d_with_indices(x.to(device, dt), 2);
      const std::string ctx = device.str() + " " + to_string(dt);
      expect_close(v.cpu(), r.at("y"), 0, 0, ctx + " values");
      expect_close(i.cpu(), r.at("i"), 0, 0, ctx + " indices");
    }
  }
}

}  // namespace
