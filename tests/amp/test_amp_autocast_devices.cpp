// Autocast policies on every device (CPU and each CUDA device) and both region dtypes (float16,
// bfloat16): each listed op's output dtype follows its device's column of core/autocast_policy.h,
// and its values and gradients equal the same math done in float64 on the inputs rounded as the
// policy says, then rounded once to the output dtype (what Ember's kernels promise: float32
// accumulation, one rounding). PyTorch 1.13 has no CUDA here and no float16 CPU autocast, so the
// reference is PyTorch with the casts written out.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::Domain;
using ember::testing::expect_close;
using ember::testing::InputSpec;
using ember::testing::make_input;
using ember::testing::seed_for;
using ember::testing::test_devices;
using ember::testing::torch_run;
namespace F = ember::nn::functional;

namespace {

using DeviceOp = std::function<Tensor(const std::vector<Tensor>&, ScalarType lower)>;

// The reference is a PyTorch expression over a, b, c, d and L (the region's dtype as a
// torch.dtype); `cpu` is used on the CPU and `cuda` on CUDA devices (the same when empty).
struct DeviceCase {
  std::string name;
  std::vector<InputSpec> inputs;
  DeviceOp op;
  std::string cuda;
  std::string cpu;
};

InputSpec F32(std::vector<int64_t> shape, Domain d = Domain::Normal) {
  return {std::move(shape), kFloat, d};
}
InputSpec Idx(std::vector<int64_t> shape, int64_t high) {
  return {std::move(shape), kLong, Domain::Index, high};
}

#define DOP(expr)                                             \
  [](const std::vector<Tensor>& in, ScalarType L) -> Tensor { \
    const Tensor& a = in[0];                                  \
    const Tensor& b = in.size() > 1 ? in[1] : in[0];          \
    const Tensor& c = in.size() > 2 ? in[2] : in[0];          \
    (void)a, (void)b, (void)c, (void)L;                       \
    return expr;                                              \
  }

// "x.to(L).double()" for each name: an input rounded to the region's dtype, then exact math.
std::vector<DeviceCase> cases() {
  const std::string aL = "a.to(L).double()", bL = "b.to(L).double()", cL = "c.to(L).double()";
  return {
      // lower precision on both device types
      {"mm",
       {F32({5, 7}), F32({7, 3})},
       DOP(mm(a, b)),
       "torch.mm(" + aL + ", " + bL + ").to(L)",
       ""},
      {"bmm",
       {F32({2, 3, 4}), F32({2, 4, 5})},
       DOP(bmm(a, b)),
       "torch.bmm(" + aL + ", " + bL + ").to(L)",
       ""},
      {"addmm",
       {F32({3}), F32({4, 6}), F32({6, 3})},
       DOP(addmm(a, b, c)),
       "torch.addmm(" + aL + ", " + bL + ", " + cL + ").to(L)",
       ""},
      {"matmul",
       {F32({2, 3, 4}), F32({4, 5})},
       DOP(matmul(a, b)),
       "torch.matmul(" + aL + ", " + bL + ").to(L)",
       ""},
      {"linear",
       {F32({3, 6}), F32({4, 6}), F32({4})},
       DOP(F::linear(a, b, c)),
       "F.linear(" + aL + ", " + bL + ", " + cL + ").to(L)",
       ""},
      {"conv2d",
       {F32({2, 3, 5, 5}), F32({4, 3, 3, 3}), F32({4})},
       DOP(F::conv2d(a, b, F::Conv2dFuncOptions().bias(c).padding(1))),
       "F.conv2d(" + aL + ", " + bL + ", " + cL + ", padding=1).to(L)",
       ""},
      // lower precision on CUDA (PyTorch 2.x's CUDA list); the CPU runs it in its inputs' dtype
      {"scaled_dot_product_attention",
       {F32({2, 2, 5, 4}), F32({2, 2, 5, 4}), F32({2, 2, 5, 4})},
       DOP(scaled_dot_product_attention(a, b, c, {}, 0.0, true)),
       "(torch.softmax((" + aL + " @ " + bL +
           ".transpose(-2, -1) * 0.5).masked_fill(torch.ones(5, "
           "5, dtype=torch.bool).triu(1), float('-inf')), -1) @ " +
           cL + ").to(L)",
       "(torch.softmax((a.double() @ b.double().transpose(-2, -1) * 0.5).masked_fill(torch.ones("
       "5, 5, dtype=torch.bool).triu(1), float('-inf')), -1) @ c.double()).float()"},
      {"float64_untouched",
       {{{3, 4}, kDouble}, {{4, 2}, kDouble}},
       DOP(mm(a, b)),
       "torch.mm(a, b)",
       ""},
      // float32 on CUDA; the CPU list leaves these in the input's dtype
      {"exp",
       {F32({3, 4})},
       DOP(exp(a.to(L))),
       "torch.exp(" + aL + ").float()",
       "torch.exp(" + aL + ").to(L)"},
      {"log",
       {F32({3, 4}, Domain::Positive)},
       DOP(log(a.to(L))),
       "torch.log(" + aL + ").float()",
       "torch.log(" + aL + ").to(L)"},
      {"rsqrt",
       {F32({3, 4}, Domain::Positive)},
       DOP(rsqrt(a.to(L))),
       "torch.rsqrt(" + aL + ").float()",
       "torch.rsqrt(" + aL + ").to(L)"},
      {"pow",
       {F32({3, 4}, Domain::Positive), F32({3, 4})},
       DOP(pow(a.to(L), 3.0) + pow(a.to(L), b.to(L))),
       "(torch.pow(" + aL + ", 3.0) + torch.pow(" + aL + ", " + bL + ")).float()",
       "(torch.pow(" + aL + ", 3.0).to(L) + torch.pow(" + aL + ", " + bL + ").to(L))"},
      {"softmax",
       {F32({3, 6})},
       DOP(softmax(a.to(L), 1)),
       "torch.softmax(" + aL + ", 1).float()",
       "torch.softmax(" + aL + ", 1).to(L)"},
      {"log_softmax",
       {F32({3, 6})},
       DOP(log_softmax(a.to(L), 1)),
       "torch.log_softmax(" + aL + ", 1).float()",
       "torch.log_softmax(" + aL + ", 1).to(L)"},
      {"softmax_dtype_given",
       {F32({3, 6})},
       DOP(softmax(a.to(L), 1, kDouble)),
       "torch.softmax(" + aL + ", 1)",
       ""},
      {"sum",
       {F32({3, 6})},
       DOP(sum(a.to(L), {1})),
       "torch.sum(" + aL + ", [1]).float()",
       "torch.sum(" + aL + ", [1]).to(L)"},
      {"logsumexp",
       {F32({3, 6})},
       DOP(logsumexp(a.to(L), {1})),
       "torch.logsumexp(" + aL + ", [1]).float()",
       "torch.logsumexp(" + aL + ", [1]).to(L)"},
      {"norm",
       {F32({3, 6})},
       DOP(a.to(L).norm()),
       "" + aL + ".norm().float()",
       "" + aL + ".norm().to(L)"},
      {"layer_norm",
       {F32({3, 6}), F32({6}), F32({6})},
       DOP(F::layer_norm(a.to(L), F::LayerNormFuncOptions({6}).weight(b).bias(c))),
       "F.layer_norm(" + aL + ", [6], b.double(), c.double()).float()",
       "F.layer_norm(" + aL + ", [6], b.double(), c.double()).to(L)"},
      // float32 on both
      {"prod",
       {F32({2, 3}, Domain::Positive)},
       DOP(prod(a.to(L))),
       "torch.prod(" + aL + ").float()",
       ""},
      {"cross_entropy",
       {F32({4, 5}), Idx({4}, 5)},
       DOP(F::cross_entropy(a.to(L), b)),
       "F.cross_entropy(" + aL + ", b).float()",
       ""},
      {"nll_loss",
       {F32({4, 5}), Idx({4}, 5)},
       DOP(F::nll_loss(a.to(L), b)),
       "F.nll_loss(" + aL + ", b).float()",
       ""},
      {"mse_loss",
       {F32({4, 5}), F32({4, 5})},
       DOP(F::mse_loss(a.to(L), b)),
       "F.mse_loss(" + aL + ", b.double()).float()",
       ""},
      {"l1_loss",
       {F32({4, 5}), F32({4, 5})},
       DOP(F::l1_loss(a.to(L), b)),
       "F.l1_loss(" + aL + ", b.double()).float()",
       ""},
      {"bce_with_logits",
       {F32({4, 5}), F32({4, 5}, Domain::Unit)},
       DOP(F::binary_cross_entropy_with_logits(a.to(L), b.abs())),
       "F.binary_cross_entropy_with_logits(" + aL + ", b.abs().double()).float()",
       ""},
      // widest input
      {"cat_mixed",
       {F32({2, 3}), F32({4, 3})},
       DOP(cat({a.to(L), b})),
       "torch.cat([" + aL + ", b.double()]).float()",
       ""},
      {"stack_lower",
       {F32({2, 3}), F32({2, 3})},
       DOP(stack({a.to(L), b.to(L)})),
       "torch.stack([" + aL + ", " + bL + "]).to(L)",
       ""},
      // composites that stay in the input's dtype
      {"batch_norm",
       {F32({2, 3, 4, 4}), F32({3}), F32({3})},
       DOP(batch_norm(a.to(L), b, c, {}, {}, true, 0.1, 1e-5)),
       "F.batch_norm(" + aL + ", None, None, b.double(), c.double(), training=True).to(L)",
       ""},
      {"avg_pool2d",
       {F32({2, 3, 6, 6})},
       DOP(avg_pool2d(a.to(L), 2) + adaptive_avg_pool2d(a.to(L), 1)),
       "(F.avg_pool2d(" + aL + ", 2).to(L) + F.adaptive_avg_pool2d(" + aL + ", 1).to(L))",
       ""},
      {"relu", {F32({3, 4})}, DOP(relu(a.to(L))), "torch.relu(" + aL + ").to(L)", ""},
  };
}

std::string dtype_name(ScalarType t) {
  return t == kHalf ? "torch.float16" : "torch.bfloat16";
}

std::string reference_program(const DeviceCase& c, bool cuda, ScalarType lower, size_t n) {
  const std::string names = "abcd";
  std::string py = "L = " + dtype_name(lower) + "\n";
  for (size_t i = 0; i < n; ++i) {
    py +=
        std::string("if ") + names[i] + ".is_floating_point(): " + names[i] + ".requires_grad_()\n";
  }
  py += "y = " + (cuda || c.cpu.empty() ? c.cuda : c.cpu) + "\n";
  py += "y.backward(gy.to(y.dtype))\n";
  for (size_t i = 0; i < n; ++i) {
    py += std::string("g") + names[i] + " = " + names[i] + ".grad if " + names[i] +
          ".grad is not None else torch.zeros(0)\n";
  }
  return py;
}

// One rounding to `t` (2 ulps of slack for the order of float32 sums before it).
double tolerance(ScalarType t) {
  switch (t) {
    case kHalf:
      return 2.0 / 1024;
    case kBFloat16:
      return 2.0 / 128;
    case kFloat:
      return 1e-5;
    default:
      return 1e-12;
  }
}

class AutocastOnDevices : public ::testing::TestWithParam<DeviceCase> {};

TEST_P(AutocastOnDevices, PolicyDtypesValuesAndGradients) {
  const DeviceCase& c = GetParam();
  const std::string names = "abcd";
  std::vector<Tensor> cpu_in;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    cpu_in.push_back(make_input(c.inputs[i], seed_for(c.name) + i));
  }
  for (Device device : test_devices()) {
    for (ScalarType lower : {kHalf, kBFloat16}) {
      const std::string ctx = c.name + " on " + device.str() + " in " + to_string(lower);
      std::vector<Tensor> in;
      for (const Tensor& t : cpu_in) {
        Tensor d = t.clone().to(device);  // a fresh leaf per run
        in.push_back(d.is_floating_point() ? d.requires_grad_() : d);
      }
      Tensor y;
      {
        amp::autocast region(device.type(), lower);
        y = c.op(in, lower);
      }
      EXPECT_EQ(y.device(), device) << ctx;
      manual_seed(seed_for(c.name + "/gy"));
      Tensor gy = randn(y.sizes());
      y.backward(gy.to(device, y.dtype()));

      std::map<std::string, Tensor> torch_in{{"gy", gy}};
      std::vector<std::string> outs{"y"};
      for (size_t i = 0; i < in.size(); ++i) {
        torch_in[std::string(1, names[i])] = cpu_in[i];
        outs.push_back(std::string("g") + names[i]);
      }
      auto r = torch_run(reference_program(c, device.is_cuda(), lower, in.size()), torch_in, outs);
      ASSERT_EQ(y.dtype(), r.at("y").dtype()) << ctx;
      const double tol = tolerance(y.dtype());
      expect_close(y.cpu(), r.at("y"), tol, tol, ctx + " forward");
      for (size_t i = 0; i < in.size(); ++i) {
        if (!in[i].is_floating_point()) continue;
        const std::string g = std::string("g") + names[i];
        ASSERT_TRUE(in[i].grad().defined()) << ctx << " " << g;
        EXPECT_EQ(in[i].grad().dtype(), in[i].dtype()) << ctx << " " << g;
        // The gradient went through the op's backward in the op's dtype: one rounding there.
        const double gt = std::max(tolerance(lower), tol);
        expect_close(in[i].grad().cpu(), r.at(g), gt, gt, ctx + " " + g);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, AutocastOnDevices, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// A region of one device type leaves the other's ops alone.
TEST(AutocastDevices, RegionsApplyToTheirDeviceTypeOnly) {
  for (Device device : test_devices()) {
    Tensor a = randn({2, 3}, device), b = randn({3, 2}, device);
    const DeviceType other = device.is_cuda() ? kCPU : kCUDA;
    {
      amp::autocast region(other);
      EXPECT_EQ(mm(a, b).dtype(), kFloat) << device;
    }
    amp::autocast region(device.type());
    EXPECT_EQ(mm(a, b).dtype(), device.is_cuda() ? kHalf : kBFloat16) << device;
  }
}

// A small training step under autocast: parameters stay float32, their gradients are float32
// and match those of the same step with the casts written out.
TEST(AutocastDevices, TrainingStepGradientsInParameterDtype) {
  for (Device device : test_devices()) {
    manual_seed(11);
    auto model = nn::Sequential(nn::Linear(8, 16), nn::ReLU(), nn::Linear(16, 4));
    model->to(device);
    Tensor x = randn({6, 8}, device);
    Tensor t = tensor({0L, 1L, 2L, 3L, 0L, 1L}).to(device);
    Tensor loss;
    {
      amp::autocast region(device.type());
      loss = F::cross_entropy(model->forward(x), t);
    }
    EXPECT_EQ(loss.dtype(), kFloat);
    loss.backward();
    const ScalarType L = amp::get_autocast_dtype(device.type());
    // The same model with each cast spelt out.
    auto params = model->parameters();
    std::vector<Tensor> ref;
    for (const Tensor& p : params) ref.push_back(p.detach().clone().requires_grad_());
    Tensor h = relu(F::linear(x.to(L), ref[0].to(L), ref[1].to(L)));
    Tensor ref_loss = F::cross_entropy(F::linear(h, ref[2].to(L), ref[3].to(L)).to(kFloat), t);
    ref_loss.backward();
    expect_close(loss.cpu(), ref_loss.cpu(), 0, 0, device.str() + " loss");
    for (size_t i = 0; i < params.size(); ++i) {
      EXPECT_EQ(params[i].grad().dtype(), kFloat);
      expect_close(params[i].grad().cpu(), ref[i].grad().cpu(), 0, 0,
                   device.str() + " gradient " + std::to_string(i));
    }
  }
}

}  // namespace
