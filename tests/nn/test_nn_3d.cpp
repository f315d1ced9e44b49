// The 3-D layers and unpooling of issue 34 against PyTorch on every test device, in float32 and
// float64: conv3d, conv_transpose3d, max_pool3d (with indices), avg_pool3d, the adaptive 3-D
// pools, instance_norm over volumes and max_unpool1d/2d/3d (the output and the gradient of every
// input for the same upstream gradient); the modules with their parameters' gradients against
// torch.nn with the same weights; then printing and bad input.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::test_devices;
using ember::testing::TorchOracle;
namespace F = ember::nn::functional;

namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct Case {
  std::string name;
  std::vector<std::vector<int64_t>> shapes;  // the inputs a, b, c (all differentiable)
  Fn f;
  std::string py;  // sets y from a, b, c
};

double rtol_for(ScalarType dtype) {
  return dtype == kDouble ? 1e-9 : 2e-4;
}
double atol_for(ScalarType dtype) {
  return dtype == kDouble ? 1e-11 : 2e-5;
}

// Runs the case on `device` in `dtype` and in PyTorch on the same values, backpropagating the
// same upstream gradient.
void run_case(const Case& c, Device device, ScalarType dtype) {
  const std::string ctx = c.name + " (" + python_name(dtype) + ") on " + device.str();
  const char* names[] = {"a", "b", "c"};
  std::vector<Tensor> leaves;
  std::map<std::string, Tensor> in;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    manual_seed(ember::testing::seed_for(c.name) + i);
    const Tensor t = randn(c.shapes[i], kDouble).to(dtype);
    in[names[i]] = t.clone().requires_grad_();
    leaves.push_back(t.to(device).detach().requires_grad_());
  }
  Tensor y = c.f(leaves);
  ASSERT_EQ(y.device(), device) << ctx;
  manual_seed(ember::testing::seed_for(c.name + "/gy"));
  const Tensor gy = randn(y.sizes(), kDouble).to(dtype);
  y.backward(gy.to(device));
  in["gy"] = gy;
  std::string code = c.py + "\ny.backward(gy)\n";
  std::vector<std::string> outs{"y"};
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    code += std::string("g") + names[i] + " = " + names[i] + ".grad\n";
    outs.push_back(std::string("g") + names[i]);
  }
  auto r = TorchOracle::instance().run(code, in, outs);
  expect_close(y.cpu(), r.at("y"), rtol_for(dtype), atol_for(dtype), ctx + ": output");
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    ASSERT_TRUE(leaves[i].grad().defined()) << ctx << ": no gradient for " << names[i];
    expect_close(leaves[i].grad().cpu(), r.at(std::string("g") + names[i]), rtol_for(dtype),
                 atol_for(dtype), ctx + ": gradient of " + names[i]);
  }
}

void run_all(const std::vector<Case>& cases) {
  for (const Device& device : test_devices()) {
    for (ScalarType dtype : {kDouble, kFloat}) {
      for (const Case& c : cases) run_case(c, device, dtype);
    }
  }
}

#define FN(...) [](const std::vector<Tensor>& x) -> Tensor { return __VA_ARGS__; }

std::vector<Case> conv_cases() {
  using CO = F::Conv3dFuncOptions;
  using TO = F::ConvTranspose3dFuncOptions;
  return {
      {"conv3d",
       {{2, 3, 5, 6, 4}, {4, 3, 3, 2, 3}, {4}},
       FN(F::conv3d(x[0], x[1], CO().bias(x[2]))),
       "y = F.conv3d(a, b, c)"},
      {"conv3d_stride_pad_dilation",
       {{2, 2, 7, 6, 8}, {3, 2, 2, 3, 2}, {3}},
       FN(ember::conv3d(x[0], x[1], x[2], {2, 1, 3}, {1, 0, 2}, {2, 1, 1})),
       "y = F.conv3d(a, b, c, stride=(2, 1, 3), padding=(1, 0, 2), dilation=(2, 1, 1))"},
      {"conv3d_groups_no_bias",
       {{1, 4, 4, 5, 3}, {6, 2, 3, 3, 1}},
       FN(F::conv3d(x[0], x[1], CO().padding(1).groups(2))),
       "y = F.conv3d(a, b, padding=1, groups=2)"},
      // An even kernel: 'same' puts the odd padding element after (back, bottom, right).
      {"conv3d_same",
       {{2, 2, 5, 4, 6}, {3, 2, 2, 3, 4}, {3}},
       FN(F::conv3d(x[0], x[1], CO().bias(x[2]).padding(kSame).dilation({1, 2, 1}))),
       "y = F.conv3d(a, b, c, padding='same', dilation=(1, 2, 1))"},
      {"conv3d_valid_unbatched",
       {{3, 4, 5, 4}, {2, 3, 2, 2, 2}},
       FN(F::conv3d(x[0], x[1], CO().padding(kValid))),
       "y = F.conv3d(a, b, padding='valid')"},
      {"conv_transpose3d",
       {{2, 4, 3, 4, 3}, {4, 3, 3, 2, 3}, {6}},
       FN(F::conv_transpose3d(
           x[0], x[1],
           TO().bias(x[2]).stride({2, 1, 2}).padding(1).output_padding({1, 0, 1}).groups(2))),
       "y = F.conv_transpose3d(a, b, c, stride=(2, 1, 2), padding=1, output_padding=(1, 0, 1), "
       "groups=2)"},
      // output_padding at or above the stride is allowed below the dilation.
      {"conv_transpose3d_dilated",
       {{1, 2, 3, 3, 2}, {2, 3, 2, 2, 3}},
       FN(ember::conv_transpose3d(x[0], x[1], {}, 1, {0, 1, 0}, {1, 1, 0}, 1, {2, 2, 1})),
       "y = F.conv_transpose3d(a, b, None, stride=1, padding=(0, 1, 0), output_padding=(1, 1, 0), "
       "dilation=(2, 2, 1))"},
      {"conv_transpose3d_unbatched",
       {{2, 3, 2, 4}, {2, 2, 2, 3, 2}, {2}},
       FN(ember::conv_transpose3d(x[0], x[1], x[2], {1, 2, 2})),
       "y = F.conv_transpose3d(a, b, c, stride=(1, 2, 2))"},
  };
}

std::vector<Case> pool_cases() {
  using MO = F::MaxPool3dFuncOptions;
  using AO = F::AvgPool3dFuncOptions;
  return {
      {"max_pool3d", {{2, 3, 4, 6, 5}}, FN(F::max_pool3d(x[0], MO(2))), "y = F.max_pool3d(a, 2)"},
      {"max_pool3d_options",
       {{2, 2, 7, 9, 6}},
       FN(F::max_pool3d(
           x[0], MO({3, 3, 2}).stride({2, 1, 2}).padding(1).dilation({1, 2, 1}).ceil_mode(true))),
       "y = F.max_pool3d(a, (3, 3, 2), (2, 1, 2), 1, (1, 2, 1), ceil_mode=True)"},
      {"max_pool3d_unbatched",
       {{3, 5, 4, 4}},
       FN(F::max_pool3d(x[0], MO({2, 1, 2}))),
       "y = F.max_pool3d(a, (2, 1, 2))"},
      // The indices, as the values they pick (PyTorch's flat (d * H + h) * W + w positions).
      {"max_pool3d_indices",
       {{2, 2, 5, 6, 7}},
       FN([&] {
         auto [v, i] = F::max_pool3d_with_indices(x[0], MO(3).stride(2).padding(1));
         return v + i.to(v.dtype()) * 0.001;
       }()),
       "v, i = F.max_pool3d(a, 3, 2, 1, return_indices=True)\ny = v + i.to(v.dtype) * 0.001"},
      {"avg_pool3d", {{2, 3, 5, 6, 4}}, FN(F::avg_pool3d(x[0], AO(2))), "y = F.avg_pool3d(a, 2)"},
      {"avg_pool3d_pad_ceil",
       {{2, 2, 7, 6, 5}},
       FN(F::avg_pool3d(x[0], AO({3, 2, 3}).stride(2).padding({1, 1, 0}).ceil_mode(true))),
       "y = F.avg_pool3d(a, (3, 2, 3), 2, (1, 1, 0), ceil_mode=True)"},
      {"avg_pool3d_exclude_pad",
       {{1, 3, 6, 5, 7}},
       FN(F::avg_pool3d(x[0], AO(3).stride({1, 2, 2}).padding(1).count_include_pad(false))),
       "y = F.avg_pool3d(a, 3, (1, 2, 2), 1, count_include_pad=False)"},
      {"avg_pool3d_divisor",
       {{3, 4, 5, 6}},
       FN(F::avg_pool3d(x[0], AO(2).padding(1).divisor_override(3))),
       "y = F.avg_pool3d(a, 2, padding=1, divisor_override=3)"},
      {"adaptive_avg_pool3d",
       {{2, 3, 5, 7, 6}},
       FN(F::adaptive_avg_pool3d(x[0], F::AdaptiveAvgPool3dFuncOptions({3, 4, 2}))),
       "y = F.adaptive_avg_pool3d(a, (3, 4, 2))"},
      {"adaptive_avg_pool3d_grow",
       {{2, 3, 4, 3}},
       FN(F::adaptive_avg_pool3d(x[0], F::AdaptiveAvgPool3dFuncOptions({3, 5, 4}))),
       "y = F.adaptive_avg_pool3d(a, (3, 5, 4))"},
      {"adaptive_max_pool3d",
       {{2, 2, 6, 5, 7}},
       FN([&] {
         auto [v, i] =
             F::adaptive_max_pool3d_with_indices(x[0], F::AdaptiveMaxPool3dFuncOptions({4, 2, 3}));
         return v + i.to(v.dtype()) * 0.001;
       }()),
       "v, i = F.adaptive_max_pool3d(a, (4, 2, 3), return_indices=True)\n"
       "y = v + i.to(v.dtype) * 0.001"},
      {"instance_norm_3d",
       {{2, 3, 4, 3, 5}, {3}, {3}},
       FN(F::instance_norm(x[0], F::InstanceNormFuncOptions().weight(x[1]).bias(x[2]))),
       "y = F.instance_norm(a, weight=b, bias=c)"},
  };
}

// Unpooling is checked through the max pool that makes its indices: the gradient reaches the
// pool's input through both.
std::vector<Case> unpool_cases() {
  return {
      {"max_unpool1d",
       {{2, 3, 9}},
       FN([&] {
         auto [v, i] = F::max_pool1d_with_indices(x[0], F::MaxPool1dFuncOptions(3).stride(2));
         return F::max_unpool1d(v, i, F::MaxUnpool1dFuncOptions(3).stride(2));
       }()),
       "v, i = F.max_pool1d(a, 3, 2, return_indices=True)\ny = F.max_unpool1d(v, i, 3, 2)"},
      {"max_unpool2d_output_size",
       {{2, 2, 7, 6}},
       FN([&] {
         auto [v, i] = F::max_pool2d_with_indices(x[0], F::MaxPool2dFuncOptions(2));
         return F::max_unpool2d(
             v, i, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{7, 6}));
       }()),
       "v, i = F.max_pool2d(a, 2, return_indices=True)\n"
       "y = F.max_unpool2d(v, i, 2, output_size=(7, 6))"},
      {"max_unpool3d_padded",
       {{2, 2, 5, 6, 4}},
       FN([&] {
         auto [v, i] =
             F::max_pool3d_with_indices(x[0], F::MaxPool3dFuncOptions(3).stride(2).padding(1));
         return F::max_unpool3d(v, i,
                                F::MaxUnpool3dFuncOptions(3).stride(2).padding(1).output_size(
                                    std::vector<int64_t>{5, 6, 4}));
       }()),
       "v, i = F.max_pool3d(a, 3, 2, 1, return_indices=True)\n"
       "y = F.max_unpool3d(v, i, 3, 2, 1, output_size=(5, 6, 4))"},
      {"max_unpool3d_unbatched",
       {{3, 4, 4, 6}},
       FN([&] {
         auto [v, i] = F::max_pool3d_with_indices(x[0], F::MaxPool3dFuncOptions(2));
         return ember::max_unpool3d(v, i, {4, 5, 6});
       }()),
       "v, i = F.max_pool3d(a, 2, return_indices=True)\n"
       "y = F.max_unpool3d(v, i, 2, output_size=(4, 5, 6))"},
  };
}

TEST(Nn3d, ConvolutionsMatchTorchOnEveryDevice) {
  run_all(conv_cases());
}

TEST(Nn3d, PoolsAndInstanceNormMatchTorchOnEveryDevice) {
  run_all(pool_cases());
}

TEST(Nn3d, UnpoolingMatchesTorchOnEveryDevice) {
  run_all(unpool_cases());
}

// A module's output and the gradients of its input and parameters against torch.nn's module of
// the same options holding the same parameters (`make` builds the torch module as `m`).
void check_module(nn::Module& module, const std::function<Tensor(const Tensor&)>& forward,
                  const Tensor& x_cpu, const std::string& make, const std::string& ctx) {
  for (const Device& device : test_devices()) {
    for (ScalarType dtype : {kDouble, kFloat}) {
      const std::string where = ctx + " (" + python_name(dtype) + ") on " + device.str();
      module.to(device, dtype);
      module.zero_grad();
      const Tensor x = x_cpu.to(dtype).to(device).detach().requires_grad_();
      Tensor y = forward(x);
      manual_seed(ember::testing::seed_for(ctx + "/gy"));
      const Tensor gy = randn(y.sizes(), kDouble).to(dtype);
      y.backward(gy.to(device));
      std::map<std::string, Tensor> in{{"x", x_cpu.to(dtype).detach().requires_grad_()},
                                       {"gy", gy}};
      std::string code = make + "\nm = m.to(x.dtype)\n";
      std::vector<std::string> outs{"y", "gx"};
      for (const auto& item : module.named_parameters()) {
        in["p_" + item.key()] = item.value().detach().cpu();
        code += "m." + item.key() + ".data.copy_(p_" + item.key() + ")\n";
      }
      code += "y = m(x)\ny.backward(gy)\ngx = x.grad\n";
      for (const auto& item : module.named_parameters()) {
        code += "g_" + item.key() + " = m." + item.key() + ".grad\n";
        outs.push_back("g_" + item.key());
      }
      auto r = TorchOracle::instance().run(code, in, outs);
      expect_close(y.cpu(), r.at("y"), rtol_for(dtype), atol_for(dtype), where + ": output");
      expect_close(x.grad().cpu(), r.at("gx"), rtol_for(dtype), atol_for(dtype),
                   where + ": input gradient");
      for (const auto& item : module.named_parameters()) {
        const Tensor& p = item.value();
        ASSERT_TRUE(p.grad().defined()) << where << ": no gradient for " << item.key();
        expect_close(p.grad().cpu(), r.at("g_" + item.key()), rtol_for(dtype), atol_for(dtype),
                     where + ": gradient of " + item.key());
      }
    }
  }
}

TEST(Nn3d, ConvModulesMatchTorchWithTheSameParameters) {
  manual_seed(34);
  const Tensor x = randn({2, 4, 5, 6, 5}, kDouble);
  struct ConvCase {
    std::string name;
    nn::Conv3dOptions options;
    std::string make;
  };
  const std::vector<ConvCase> convs = {
      {"zeros", nn::Conv3dOptions(4, 6, 3).stride({1, 2, 1}).padding(1),
       "m = torch.nn.Conv3d(4, 6, 3, stride=(1, 2, 1), padding=1)"},
      {"reflect", nn::Conv3dOptions(4, 2, {3, 2, 3}).padding({1, 1, 2}).padding_mode(kReflect),
       "m = torch.nn.Conv3d(4, 2, (3, 2, 3), padding=(1, 1, 2), padding_mode='reflect')"},
      {"replicate_groups",
       nn::Conv3dOptions(4, 4, 2).padding(1).groups(2).bias(false).padding_mode(kReplicate),
       "m = torch.nn.Conv3d(4, 4, 2, padding=1, groups=2, bias=False, "
       "padding_mode='replicate')"},
      {"circular_same", nn::Conv3dOptions(4, 3, {2, 3, 2}).padding(kSame).padding_mode(kCircular),
       "m = torch.nn.Conv3d(4, 3, (2, 3, 2), padding='same', padding_mode='circular')"},
  };
  for (const ConvCase& c : convs) {
    nn::Conv3d m(c.options);
    check_module(
        *m, [&](const Tensor& t) { return m(t); }, x, c.make, "Conv3d " + c.name);
  }
  nn::ConvTranspose3d t(
      nn::ConvTranspose3dOptions(4, 6, {3, 2, 2}).stride(2).padding({1, 0, 1}).groups(2));
  check_module(
      *t,
      [&](const Tensor& in) {
        return t->forward(in, std::vector<int64_t>{10, 13, 9});
      },
      x,
      "m = torch.nn.ConvTranspose3d(4, 6, (3, 2, 2), stride=2, padding=(1, 0, 1), groups=2)\n"
      "m.forward_ = m.forward\nm.forward = lambda x: m.forward_(x, output_size=[10, 13, 9])",
      "ConvTranspose3d output_size");
  nn::InstanceNorm3d norm(nn::InstanceNormOptions(4).affine(true));
  {
    NoGradGuard no_grad;  // parameters other than PyTorch's defaults
    norm->weight.uniform_(0.5, 1.5);
    norm->bias.uniform_(-0.5, 0.5);
  }
  check_module(
      *norm, [&](const Tensor& in) { return norm(in); }, x,
      "m = torch.nn.InstanceNorm3d(4, affine=True)", "InstanceNorm3d affine");
}

TEST(Nn3d, PoolModulesMatchFunctional) {
  manual_seed(3);
  for (const Device& device : test_devices()) {
    const Tensor x = randn({2, 3, 6, 5, 7}).to(device);
    auto [v, i] = nn::MaxPool3d(nn::MaxPool3dOptions(2).padding(1))->forward_with_indices(x);
    auto [fv, fi] = F::max_pool3d_with_indices(x, F::MaxPool3dFuncOptions(2).padding(1));
    expect_close(v.cpu(), fv.cpu());
    expect_close(i.cpu(), fi.cpu());
    const std::vector<int64_t> size{6, 5, 7};
    expect_close(
        nn::MaxUnpool3d(nn::MaxUnpool3dOptions(2).padding(1))(v, i, size).cpu(),
        F::max_unpool3d(v, i, F::MaxUnpool3dFuncOptions(2).padding(1).output_size(size)).cpu());
    expect_close(nn::AvgPool3d(nn::AvgPool3dOptions(3).stride(2))(x).cpu(),
                 F::avg_pool3d(x, F::AvgPool3dFuncOptions(3).stride(2)).cpu());
    expect_close(nn::AdaptiveAvgPool3d(nn::AdaptiveAvgPool3dOptions({2, 3, 4}))(x).cpu(),
                 F::adaptive_avg_pool3d(x, F::AdaptiveAvgPool3dFuncOptions({2, 3, 4})).cpu());
    auto [av, ai] = nn::AdaptiveMaxPool3d(nn::AdaptiveMaxPool3dOptions(3))->forward_with_indices(x);
    auto [fav, fai] = F::adaptive_max_pool3d_with_indices(x, F::AdaptiveMaxPool3dFuncOptions(3));
    expect_close(av.cpu(), fav.cpu());
    expect_close(ai.cpu(), fai.cpu());
    const Tensor x1 = randn({2, 3, 8}).to(device);
    auto [v1, i1] = nn::MaxPool1d(2)->forward_with_indices(x1);
    expect_close(
        nn::MaxUnpool1d(2)(v1, i1, std::vector<int64_t>{9}).cpu(),
        F::max_unpool1d(v1, i1, F::MaxUnpool1dFuncOptions(2).output_size(std::vector<int64_t>{9}))
            .cpu());
  }
}

TEST(Nn3d, ModulesPrintAsLibtorch) {
  auto str = [](const auto& m) {
    std::ostringstream os;
    os << *m;
    return os.str();
  };
  EXPECT_EQ(str(nn::Conv3d(nn::Conv3dOptions(2, 4, 3).padding(kSame))),
            "ember::nn::Conv3d(2, 4, kernel_size=[3, 3, 3], stride=[1, 1, 1], padding='same')");
  EXPECT_EQ(
      str(nn::Conv3d(
          nn::Conv3dOptions(2, 4, {3, 1, 2}).stride({1, 2, 1}).padding(1).padding_mode(kReflect))),
      "ember::nn::Conv3d(2, 4, kernel_size=[3, 1, 2], stride=[1, 2, 1], padding=[1, 1, 1], "
      "padding_mode=kReflect)");
  EXPECT_EQ(str(nn::ConvTranspose3d(nn::ConvTranspose3dOptions(2, 4, 3).output_padding(1))),
            "ember::nn::ConvTranspose3d(2, 4, kernel_size=[3, 3, 3], stride=[1, 1, 1], "
            "output_padding=[1, 1, 1])");
  EXPECT_EQ(str(nn::MaxPool3d(2)),
            "ember::nn::MaxPool3d(kernel_size=[2, 2, 2], stride=[2, 2, 2], padding=[0, 0, 0], "
            "dilation=[1, 1, 1], ceil_mode=false)");
  EXPECT_EQ(str(nn::AvgPool3d(nn::AvgPool3dOptions({1, 2, 3}))),
            "ember::nn::AvgPool3d(kernel_size=[1, 2, 3], stride=[1, 2, 3], padding=[0, 0, 0])");
  EXPECT_EQ(str(nn::AdaptiveAvgPool3d(2)), "ember::nn::AdaptiveAvgPool3d(output_size=[2, 2, 2])");
  EXPECT_EQ(str(nn::AdaptiveMaxPool3d(2)), "ember::nn::AdaptiveMaxPool3d(output_size=[2, 2, 2])");
  EXPECT_EQ(str(nn::MaxUnpool2d(nn::MaxUnpool2dOptions(2).stride(1))),
            "ember::nn::MaxUnpool2d(kernel_size=[2, 2], stride=[1, 1], padding=[0, 0])");
  EXPECT_TRUE(contains(str(nn::InstanceNorm3d(4)), "ember::nn::InstanceNorm3d(4, eps=1e-05"));
}

TEST(Nn3d, BadInputsNameTheProblem) {
  const Tensor x = randn({2, 4, 5, 5, 5});
  // Wrong rank.
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         ember::conv3d(randn({4, 5, 5}), randn({2, 4, 3, 3, 3}));
                       }),
                       "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input "
                       "of size: [4, 5, 5]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         ember::max_pool3d(randn({4, 5, 5}), 2);
                       }),
                       "non-empty 4D or 5D (batch mode) tensor expected for input"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         ember::avg_pool3d(randn({4, 5, 5}), 2);
                       }),
                       "non-empty 4D or 5D (batch mode) tensor expected for input"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         ember::adaptive_avg_pool3d(randn({2, 3, 4}), 2);
                       }),
                       "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [2, 3, 4]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         nn::InstanceNorm3d(4)(randn({4, 5, 5}));
                       }),
                       "expected 4D or 5D input (got 3D input"));
  // Channels and groups.
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         ember::conv3d(x, randn({6, 3, 3, 3, 3}));
                       }),
                       "Given groups=1, weight of size [6, 3, 3, 3, 3], expected input[2, 4, 5, "
                       "5, 5] to have 3 channels, but got 4 channels instead"));
  EXPECT_TRUE(contains(
      error_of<ValueError>([&] {
        ember::conv3d(x, randn({3, 2, 3, 3, 3}), {}, 1, 0, 1, 2);
      }),
      "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of "
      "size [3, 2, 3, 3, 3] instead"));
  EXPECT_TRUE(
      contains(error_of<ValueError>([&] { nn::Conv3d(nn::Conv3dOptions(4, 6, 3).groups(3)); }),
               "in_channels must be divisible by groups (4 % 3 != 0)"));
  // output_padding must be below the stride or the dilation.
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         ember::conv_transpose3d(x, randn({4, 2, 3, 3, 3}), {}, 2, 0, 2);
                       }),
                       "output padding must be smaller than either stride or dilation, but got "
                       "output_padding_depth: 2 output_padding_height: 2 output_padding_width: 2 "
                       "stride_depth: 2 stride_height: 2 stride_width: 2 dilation_depth: 1 "
                       "dilation_height: 1 dilation_width: 1"));
  EXPECT_TRUE(contains(
      error_of<ValueError>([&] {
        F::conv3d(x, randn({2, 4, 3, 3, 3}), F::Conv3dFuncOptions().stride(2).padding(kSame));
      }),
      "padding='same' is not supported for strided convolutions"));
  // Pools.
  EXPECT_TRUE(contains(error_of<ValueError>([&] { ember::max_pool3d(x, 3, 1, 2); }),
                       "pad should be at most half of kernel size, but got pad=[2, 2, 2] and "
                       "kernel_size=[3, 3, 3]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         ember::max_pool3d(randn({1, 2, 2, 6, 6}), 3);
                       }),
                       "Given input size: (2x2x6x6). Calculated output size: (2x0x2x2). Output "
                       "size is too small"));
  EXPECT_TRUE(contains(
      error_of<ValueError>([&] { ember::avg_pool3d(x, 2, std::nullopt, 0, false, true, 0); }),
      "divisor must be not zero"));
  // Unpooling.
  const Tensor v = randn({1, 1, 2, 2});
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         ember::max_unpool2d(v, full({1, 1, 2, 2}, 20, kLong), 4);
                       }),
                       "Found an invalid max index: 20 (output volumes are of size 4x4"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         ember::max_unpool1d(randn({1, 1, 2}), full({1, 1, 2}, 20, kLong), 4);
                       }),
                       "Found an invalid max index: 20 (output volumes are of size 4x1"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         ember::max_unpool2d(v, zeros({1, 1, 2, 2}, kInt), 4);
                       }),
                       "elements in indices should be type int64 but got: Int"));
  EXPECT_TRUE(
      contains(error_of<ValueError>([&] {
                 ember::max_unpool3d(randn({1, 1, 2, 2, 2}), zeros({1, 1, 2, 2, 1}, kLong), 4);
               }),
               "Expected shape of indices to be same as that of the input tensor ([1, 1, "
               "2, 2, 2]) but got indices tensor with shape: [1, 1, 2, 2, 1]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         F::max_unpool2d(
                             v, zeros({1, 1, 2, 2}, kLong),
                             F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{7, 7}));
                       }),
                       "invalid output_size \"[7, 7]\" (dim 0 must be between 2 and 6)"));
}

}  // namespace
