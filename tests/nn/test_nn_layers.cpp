// Layers against PyTorch: identical weights in both, then outputs and the gradients of the input
// and of every parameter after backward with the same upstream gradient.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/profiler.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::expect_close;
using ember::testing::TorchOracle;
namespace F = ember::nn::functional;

namespace {

using Leaves = std::vector<std::pair<std::string, Tensor>>;

// Runs `f` in Ember and `py` (which must set `y` from the leaves) in PyTorch, backpropagates the
// same random upstream gradient through both and compares y and each leaf's gradient.
void parity(const std::string& ctx, const std::function<Tensor()>& f, const Leaves& leaves,
            const std::string& py, double rtol = 1e-7, double atol = 1e-9,
            const std::map<std::string, Tensor>& extra = {},
            const std::vector<std::pair<std::string, Tensor>>& also = {}) {
  for (const auto& [name, t] : leaves) {
    if (t.requires_grad()) t.mutable_grad().reset();
  }
  Tensor y = f();
  Tensor gy = randn(y.sizes(), y.options());
  y.backward(gy);
  std::map<std::string, Tensor> in = extra;
  std::vector<std::string> outs{"y"};
  std::string code = py + "\ny.backward(gy)\n";
  for (const auto& [name, t] : leaves) {
    in[name] = t;
    if (t.requires_grad()) {
      code += "g_" + name + " = " + name + ".grad\n";
      outs.push_back("g_" + name);
    }
  }
  for (const auto& [name, t] : also) outs.push_back(name);
  in["gy"] = gy;
  auto r = TorchOracle::instance().run(code, in, outs);
  expect_close(y, r.at("y"), rtol, atol, ctx + ": output");
  for (const auto& [name, t] : leaves) {
    if (!t.requires_grad()) continue;
    ASSERT_TRUE(t.grad().defined()) << ctx << ": no gradient for " << name;
    expect_close(t.grad(), r.at("g_" + name), rtol, atol, ctx + ": grad of " + name);
  }
  for (const auto& [name, t] : also) expect_close(t, r.at(name), rtol, atol, ctx + ": " + name);
}

// A module's printout, as operator<< writes it.
template <typename Holder>
std::string str(const Holder& m) {
  std::ostringstream os;
  os << *m;
  return os.str();
}

Tensor input(std::vector<int64_t> shape, uint64_t seed) {
  manual_seed(seed);
  return randn(shape, kDouble).requires_grad_();
}

}  // namespace

TEST(NnLayers, Linear) {
  for (bool bias : {true, false}) {
    for (auto shape : std::vector<std::vector<int64_t>>{{6, 5}, {2, 3, 5}, {2, 2, 3, 5}, {5}}) {
      auto m = nn::Linear(nn::LinearOptions(5, 3).bias(bias));
      m->to(kDouble);
      Tensor x = input(shape, 1);
      Leaves leaves{{"x", x}, {"w", m->weight}};
      std::string py = "y = F.linear(x, w)";
      if (bias) {
        leaves.push_back({"b", m->bias});
        py = "y = F.linear(x, w, b)";
      }
      parity(
          "Linear bias=" + std::to_string(bias) + " dims=" + std::to_string(shape.size()),
          [&] { return m->forward(x); }, leaves, py);
    }
  }
  {  // a non-contiguous 3-D input (the composed path)
    auto m = nn::Linear(5, 3);
    m->to(kDouble);
    Tensor x = input({3, 2, 5}, 2);
    parity(
        "Linear transposed input", [&] { return m->forward(x.transpose(0, 1)); },
        {{"x", x}, {"w", m->weight}, {"b", m->bias}}, "y = F.linear(x.transpose(0, 1), w, b)");
  }
  {  // a contiguous input of any rank with bias is one GEMM from the bias, as PyTorch's addmm
    auto m = nn::Linear(5, 3);
    Tensor x = randn({2, 4, 5}).requires_grad_();
    profiler::profile prof;
    m->forward(x).sum().backward();
    prof.stop();
    size_t addmm = 0, add = 0;
    for (const auto& e : prof.events()) {
      addmm += e.name == "ember::addmm";
      add += e.name == "ember::add";
    }
    EXPECT_EQ(addmm, 1u);
    EXPECT_EQ(add, 0u);
  }
  // float32 through addmm, with float tolerances.
  auto m = nn::Linear(7, 4);
  Tensor x = randn({9, 7}).requires_grad_();
  parity(
      "Linear float32", [&] { return m->forward(x); }, {{"x", x}, {"w", m->weight}, {"b", m->bias}},
      "y = F.linear(x, w, b)", 1e-5, 1e-6);
}

TEST(NnLayers, Conv2d) {
  struct Case {
    int64_t C, O;
    std::vector<int64_t> k, stride, padding, dilation;
    int64_t groups;
    bool bias;
    std::vector<int64_t> in;
  };
  std::vector<Case> cases = {
      {3, 4, {3, 3}, {1, 1}, {0, 0}, {1, 1}, 1, true, {2, 3, 7, 8}},
      {3, 5, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 1, true, {2, 3, 9, 9}},
      {2, 3, {3, 3}, {1, 1}, {2, 2}, {2, 2}, 1, false, {1, 2, 6, 7}},
      {4, 6, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 2, true, {2, 4, 5, 5}},
      {6, 6, {3, 3}, {2, 1}, {1, 0}, {1, 2}, 6, true, {2, 6, 7, 9}},  // depthwise
      {3, 2, {3, 2}, {2, 1}, {1, 0}, {1, 1}, 1, true, {3, 3, 8, 6}},
      {3, 4, {1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true, {2, 3, 4, 4}},
      {3, 4, {5, 5}, {3, 3}, {2, 2}, {1, 1}, 1, true, {1, 3, 11, 10}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    auto m = nn::Conv2d(nn::Conv2dOptions(c.C, c.O, c.k)
                            .stride(c.stride)
                            .padding(ExpandingArray<2>(c.padding))
                            .dilation(c.dilation)
                            .groups(c.groups)
                            .bias(c.bias));
    m->to(kDouble);
    Tensor x = input(c.in, 10 + i);
    Leaves leaves{{"x", x}, {"w", m->weight}};
    if (c.bias) leaves.push_back({"b", m->bias});
    auto list = [](const std::vector<int64_t>& v) {
      return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ")";
    };
    std::string py = std::string("y = F.conv2d(x, w, ") + (c.bias ? "b" : "None") +
                     ", stride=" + list(c.stride) + ", padding=" + list(c.padding) +
                     ", dilation=" + list(c.dilation) + ", groups=" + std::to_string(c.groups) +
                     ")";
    parity(
        "Conv2d case " + std::to_string(i), [&] { return m->forward(x); }, leaves, py);
  }
  // padding='same' with an even kernel (asymmetric padding) and 'valid'.
  for (bool same : {true, false}) {
    auto m = nn::Conv2d(nn::Conv2dOptions(2, 3, {4, 3})
                            .padding(same ? nn::conv_padding_t(kSame) : nn::conv_padding_t(kValid))
                            .dilation({1, 2}));
    m->to(kDouble);
    Tensor x = input({2, 2, 7, 8}, 30);
    parity(
        same ? "Conv2d same" : "Conv2d valid", [&] { return m->forward(x); },
        {{"x", x}, {"w", m->weight}, {"b", m->bias}},
        std::string("y = F.conv2d(x, w, b, padding='") + (same ? "same" : "valid") +
            "', dilation=(1, 2))");
  }
  // Unbatched input and float32.
  auto m = nn::Conv2d(3, 4, 3);
  Tensor x = randn({3, 6, 6}).requires_grad_();
  parity(
      "Conv2d unbatched float32", [&] { return m->forward(x); },
      {{"x", x}, {"w", m->weight}, {"b", m->bias}}, "y = F.conv2d(x, w, b)", 1e-5, 1e-5);
  // The functional form and im2col.
  Tensor w = input({4, 3, 2, 2}, 31), xx = input({2, 3, 5, 5}, 32);
  parity(
      "F::conv2d", [&] { return F::conv2d(xx, w, F::Conv2dFuncOptions().stride(2).padding(1)); },
      {{"x", xx}, {"w", w}}, "y = F.conv2d(x, w, stride=2, padding=1)");
  parity(
      "im2col",
      [&] {
        return im2col(xx, {2, 3}, {1, 2}, {1, 0}, {2, 1});
      },
      {{"x", xx}}, "y = F.unfold(x, (2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1))");
}

TEST(NnLayers, Conv1d) {
  // Explicit, 'same' and 'valid' padding, groups, and every padding mode.
  struct Case {
    nn::Conv1dOptions options;
    std::string padding, mode;  // as PyTorch's Conv1d takes them
  };
  std::vector<Case> cases = {
      {nn::Conv1dOptions(3, 4, 3).stride(2).padding(1).dilation(2), "1", "zeros"},
      {nn::Conv1dOptions(4, 6, 4).padding(kSame).groups(2).bias(false), "'same'", "zeros"},
      {nn::Conv1dOptions(3, 2, 2).padding(kValid), "'valid'", "zeros"},
      {nn::Conv1dOptions(3, 4, 3).padding(2).padding_mode(kReflect), "2", "reflect"},
      {nn::Conv1dOptions(3, 4, 3).padding(1).padding_mode(kReplicate).stride(2), "1", "replicate"},
      {nn::Conv1dOptions(3, 4, 4).padding(kSame).padding_mode(kCircular).dilation(2), "'same'",
       "circular"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& o = cases[i].options;
    auto m = nn::Conv1d(o);
    m->to(kDouble);
    Tensor x = input({2, o.in_channels(), 9}, 40 + i);
    Leaves leaves{{"x", x}, {"w", m->weight}};
    if (o.bias()) leaves.push_back({"b", m->bias});
    const std::string py =
        "m = torch.nn.Conv1d(" + std::to_string(o.in_channels()) + ", " +
        std::to_string(o.out_channels()) + ", " + std::to_string(o.kernel_size()[0]) +
        ", stride=" + std::to_string(o.stride()[0]) + ", padding=" + cases[i].padding +
        ", dilation=" + std::to_string(o.dilation()[0]) + ", groups=" + std::to_string(o.groups()) +
        ", bias=" + (o.bias() ? "True" : "False") + ", padding_mode='" + cases[i].mode +
        "').double()\n" + "y = m._conv_forward(x, w, " + (o.bias() ? "b" : "None") + ")";
    parity(
        "Conv1d case " + std::to_string(i), [&] { return m->forward(x); }, leaves, py);
  }
  // Unbatched input, and the functional form.
  auto m = nn::Conv1d(3, 2, 3);
  m->to(kDouble);
  Tensor x = input({3, 8}, 50);
  parity(
      "Conv1d unbatched", [&] { return m->forward(x); },
      {{"x", x}, {"w", m->weight}, {"b", m->bias}}, "y = F.conv1d(x, w, b)");
}

TEST(NnLayers, ConvTranspose) {
  struct Case {
    int64_t C, O, k, stride, padding, output_padding, groups, dilation;
    bool bias;
  };
  std::vector<Case> cases = {
      {3, 4, 3, 1, 0, 0, 1, 1, true},  {3, 4, 3, 2, 1, 1, 1, 1, true},
      {4, 6, 4, 2, 1, 0, 2, 1, false}, {4, 4, 3, 1, 1, 1, 4, 2, true},  // op >= stride
      {2, 3, 2, 3, 0, 2, 1, 1, true},  {3, 2, 5, 2, 2, 1, 1, 3, true},
  };
  auto args = [](const Case& c) {
    return "stride=" + std::to_string(c.stride) + ", padding=" + std::to_string(c.padding) +
           ", output_padding=" + std::to_string(c.output_padding) +
           ", groups=" + std::to_string(c.groups) + ", dilation=" + std::to_string(c.dilation);
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    auto m2 = nn::ConvTranspose2d(nn::ConvTranspose2dOptions(c.C, c.O, c.k)
                                      .stride(c.stride)
                                      .padding(c.padding)
                                      .output_padding(c.output_padding)
                                      .groups(c.groups)
                                      .dilation(c.dilation)
                                      .bias(c.bias));
    m2->to(kDouble);
    Tensor x2 = input({2, c.C, 4, 5}, 60 + i);
    Leaves leaves2{{"x", x2}, {"w", m2->weight}};
    if (c.bias) leaves2.push_back({"b", m2->bias});
    parity(
        "ConvTranspose2d case " + std::to_string(i), [&] { return m2->forward(x2); }, leaves2,
        std::string("y = F.conv_transpose2d(x, w, ") + (c.bias ? "b" : "None") + ", " + args(c) +
            ")");

    auto m1 = nn::ConvTranspose1d(nn::ConvTranspose1dOptions(c.C, c.O, c.k)
                                      .stride(c.stride)
                                      .padding(c.padding)
                                      .output_padding(c.output_padding)
                                      .groups(c.groups)
                                      .dilation(c.dilation)
                                      .bias(c.bias));
    m1->to(kDouble);
    Tensor x1 = input({2, c.C, 6}, 70 + i);
    Leaves leaves1{{"x", x1}, {"w", m1->weight}};
    if (c.bias) leaves1.push_back({"b", m1->bias});
    parity(
        "ConvTranspose1d case " + std::to_string(i), [&] { return m1->forward(x1); }, leaves1,
        std::string("y = F.conv_transpose1d(x, w, ") + (c.bias ? "b" : "None") + ", " + args(c) +
            ")");
  }
  // output_size picks the output_padding; unbatched input; the functional form.
  auto m = nn::ConvTranspose2d(nn::ConvTranspose2dOptions(3, 2, 3).stride(2).padding(1));
  m->to(kDouble);
  Tensor x = input({1, 3, 4, 4}, 80);
  EXPECT_EQ(m->forward(x).sizes().vec(), (std::vector<int64_t>{1, 2, 7, 7}));
  EXPECT_EQ(m->forward(x, std::vector<int64_t>{8, 7}).sizes().vec(),
            (std::vector<int64_t>{1, 2, 8, 7}));
  EXPECT_EQ(m->forward(x, std::vector<int64_t>{1, 2, 8, 8}).sizes().vec(),
            (std::vector<int64_t>{1, 2, 8, 8}));
  parity(
      "ConvTranspose2d output_size",
      [&] {
        return m->forward(x, std::vector<int64_t>{8, 7});
      },
      {{"x", x}, {"w", m->weight}, {"b", m->bias}},
      "y = F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=(1, 0))");
  Tensor xu = input({3, 4, 4}, 81);
  parity(
      "ConvTranspose2d unbatched", [&] { return m->forward(xu); },
      {{"x", xu}, {"w", m->weight}, {"b", m->bias}},
      "y = F.conv_transpose2d(x, w, b, stride=2, padding=1)");
  Tensor w = input({3, 2, 2, 2}, 82);
  parity(
      "F::conv_transpose2d",
      [&] {
        return F::conv_transpose2d(x, w, F::ConvTranspose2dFuncOptions().stride(2).groups(1));
      },
      {{"x", x}, {"w", w}}, "y = F.conv_transpose2d(x, w, stride=2)");
}

TEST(NnLayers, ConvolutionsRejectBadInput) {
  using ember::testing::contains;
  using ember::testing::error_of;
  auto m = nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 2, 3).stride(2));
  std::string e = error_of([&] { m->forward(randn({1, 4, 3, 3}), std::vector<int64_t>{9, 9}); });
  EXPECT_TRUE(contains(e,
                       "requested an output size of [9, 9], but valid sizes range from [7, 7] "
                       "to [8, 8] (for an input of [3, 3])"))
      << e;
  e = error_of([&] { m->forward(randn({1, 3, 3, 3})); });
  EXPECT_TRUE(contains(e, "expected input with 4 channels")) << e;
  e = error_of([&] { conv_transpose2d(randn({1, 4, 3, 3}), randn({4, 2, 3, 3}), {}, 2, 0, 2); });
  EXPECT_TRUE(contains(e, "output padding must be smaller than either stride or dilation")) << e;
  e = error_of([&] { conv_transpose2d(randn({1, 5, 3, 3}), randn({4, 2, 3, 3})); });
  EXPECT_TRUE(contains(e, "expected input[1, 5, 3, 3] to have 4 channels, but got 5")) << e;
  e = error_of([&] { conv_transpose2d(randn({1, 4, 1, 1}), randn({4, 2, 1, 1}), {}, 1, 1); });
  EXPECT_TRUE(contains(e, "Output size is too small")) << e;
  e = error_of([&] { nn::ConvTranspose2d(nn::ConvTranspose2dOptions(3, 4, 3).groups(2)); });
  EXPECT_TRUE(contains(e, "in_channels must be divisible by groups")) << e;
  e = error_of(
      [&] { nn::ConvTranspose1d(nn::ConvTranspose1dOptions(3, 4, 3).padding_mode(kReflect)); });
  EXPECT_TRUE(contains(e, "Only \"zeros\" padding mode is supported for ConvTranspose1d")) << e;
  e = error_of([&] { conv1d(randn({2, 5, 8}), randn({4, 3, 3})); });
  EXPECT_TRUE(contains(e, "expected input[2, 5, 8] to have 3 channels, but got 5")) << e;
  e = error_of([&] { conv1d(randn({2, 3, 8, 8}), randn({4, 3, 3})); });
  EXPECT_TRUE(contains(e, "conv1d(): expected a 2-D (unbatched) or 3-D (batched) input")) << e;
  e = error_of([&] { nn::Conv1d(nn::Conv1dOptions(3, 4, 3).padding(kSame).stride(2)); });
  EXPECT_TRUE(contains(e, "padding='same' is not supported for strided convolutions")) << e;
  // Reflect padding wider than the input is refused by pad(), naming the sizes.
  auto reflect = nn::Conv1d(nn::Conv1dOptions(1, 1, 3).padding(4).padding_mode(kReflect));
  e = error_of([&] { reflect->forward(randn({1, 1, 3})); });
  EXPECT_NE(e, "<no exception>");
  // After all of that the modules still work.
  EXPECT_EQ(m->forward(randn({1, 4, 3, 3})).sizes().vec(), (std::vector<int64_t>{1, 2, 7, 7}));
}

TEST(NnLayers, ConvolutionsPrintAsLibtorch) {
  EXPECT_EQ(str(nn::Conv1d(nn::Conv1dOptions(3, 4, 3).padding(1).padding_mode(kReflect))),
            "ember::nn::Conv1d(3, 4, kernel_size=[3], stride=[1], padding=[1], "
            "padding_mode=kReflect)");
  EXPECT_EQ(str(nn::ConvTranspose2d(
                nn::ConvTranspose2dOptions(3, 4, 3).stride(2).output_padding(1).bias(false))),
            "ember::nn::ConvTranspose2d(3, 4, kernel_size=[3, 3], stride=[2, 2], "
            "output_padding=[1, 1], bias=false)");
}

TEST(NnLayers, MaxPool2d) {
  struct Case {
    std::vector<int64_t> k, stride, padding, dilation;
    bool ceil;
    std::vector<int64_t> in;
  };
  std::vector<Case> cases = {
      {{2, 2}, {2, 2}, {0, 0}, {1, 1}, false, {2, 3, 8, 8}},
      {{3, 3}, {2, 2}, {1, 1}, {1, 1}, false, {2, 2, 9, 7}},
      {{3, 3}, {2, 2}, {1, 1}, {1, 1}, true, {1, 2, 8, 8}},
      {{2, 3}, {1, 2}, {1, 1}, {2, 1}, false, {2, 2, 7, 9}},
      {{2, 2}, {2, 2}, {0, 0}, {1, 1}, true, {1, 1, 7, 5}},
      {{3, 3}, {3, 3}, {0, 0}, {1, 1}, false, {3, 6, 6}},  // unbatched
  };
  auto list = [](const std::vector<int64_t>& v) {
    return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ")";
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    auto m = nn::MaxPool2d(nn::MaxPool2dOptions(c.k)
                               .stride(c.stride)
                               .padding(c.padding)
                               .dilation(c.dilation)
                               .ceil_mode(c.ceil));
    Tensor x = input(c.in, 40 + i);
    parity(
        "MaxPool2d case " + std::to_string(i), [&] { return m->forward(x); }, {{"x", x}},
        "y = F.max_pool2d(x, " + list(c.k) + ", stride=" + list(c.stride) +
            ", padding=" + list(c.padding) + ", dilation=" + list(c.dilation) +
            ", ceil_mode=" + (c.ceil ? "True" : "False") + ")");
  }
  Tensor x = input({2, 3, 6, 6}, 49);
  parity(
      "F::max_pool2d default stride", [&] { return F::max_pool2d(x, F::MaxPool2dFuncOptions(3)); },
      {{"x", x}}, "y = F.max_pool2d(x, 3)");
}

TEST(NnLayers, OneDimensionalAndAdaptiveMaxPools) {
  Tensor x = input({2, 3, 9}, 170), x2 = input({2, 3, 7, 5}, 171);
  auto max1 = nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(2).padding(1).ceil_mode(true));
  parity(
      "MaxPool1d", [&] { return max1->forward(x); }, {{"x", x}},
      "y = torch.nn.MaxPool1d(3, 2, 1, ceil_mode=True)(x)");
  auto avg1 = nn::AvgPool1d(nn::AvgPool1dOptions(3).stride(2).count_include_pad(false).padding(1));
  parity(
      "AvgPool1d", [&] { return avg1->forward(x); }, {{"x", x}},
      "y = torch.nn.AvgPool1d(3, 2, 1, count_include_pad=False)(x)");
  auto aavg1 = nn::AdaptiveAvgPool1d(4);
  parity(
      "AdaptiveAvgPool1d", [&] { return aavg1->forward(x); }, {{"x", x}},
      "y = torch.nn.AdaptiveAvgPool1d(4)(x)");
  auto amax1 = nn::AdaptiveMaxPool1d(4);
  parity(
      "AdaptiveMaxPool1d", [&] { return amax1->forward(x); }, {{"x", x}},
      "y = torch.nn.AdaptiveMaxPool1d(4)(x)");
  auto amax2 = nn::AdaptiveMaxPool2d(nn::AdaptiveMaxPool2dOptions({3, 2}));
  parity(
      "AdaptiveMaxPool2d", [&] { return amax2->forward(x2); }, {{"x", x2}},
      "y = torch.nn.AdaptiveMaxPool2d((3, 2))(x)");
  // Indices: flat positions in each plane, as PyTorch's return_indices.
  auto r = TorchOracle::instance().run(
      "i1 = torch.nn.AdaptiveMaxPool2d((3, 2), return_indices=True)(x2)[1]\n"
      "i2 = torch.nn.MaxPool1d(2, return_indices=True)(x)[1]\n",
      {{"x", x}, {"x2", x2}}, {"i1", "i2"});
  EXPECT_TRUE(equal(std::get<1>(amax2->forward_with_indices(x2)), r.at("i1")));
  EXPECT_TRUE(equal(std::get<1>(nn::MaxPool1d(2)->forward_with_indices(x)), r.at("i2")));

  EXPECT_EQ(str(max1),
            "ember::nn::MaxPool1d(kernel_size=[3], stride=[2], padding=[1], "
            "dilation=[1], ceil_mode=true)");
  EXPECT_EQ(str(amax2), "ember::nn::AdaptiveMaxPool2d(output_size=[3, 2])");
  const std::string e = ember::testing::error_of([&] { max_pool1d(randn({2, 3, 4, 5}), 2); });
  EXPECT_TRUE(ember::testing::contains(e, "max_pool1d(): expected a 2-D (unbatched) or 3-D")) << e;
}

TEST(NnLayers, AvgPool2d) {
  struct Case {
    std::vector<int64_t> k, stride, padding;
    bool ceil, include_pad;
    std::optional<int64_t> divisor;
    std::vector<int64_t> in;
  };
  std::vector<Case> cases = {
      {{2, 2}, {2, 2}, {0, 0}, false, true, std::nullopt, {2, 3, 8, 8}},
      {{3, 3}, {2, 2}, {1, 1}, false, true, std::nullopt, {2, 2, 9, 7}},
      {{3, 3}, {2, 2}, {1, 1}, false, false, std::nullopt, {2, 2, 9, 7}},
      {{3, 3}, {2, 2}, {1, 1}, true, true, std::nullopt, {1, 2, 8, 8}},
      {{3, 3}, {2, 2}, {1, 1}, true, false, std::nullopt, {1, 2, 8, 8}},
      {{2, 3}, {1, 2}, {1, 1}, false, true, 5, {2, 2, 5, 6}},
      {{2, 2}, {2, 2}, {0, 0}, true, true, std::nullopt, {1, 1, 7, 5}},
  };
  auto list = [](const std::vector<int64_t>& v) {
    return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ")";
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    auto m = nn::AvgPool2d(nn::AvgPool2dOptions(c.k)
                               .stride(c.stride)
                               .padding(c.padding)
                               .ceil_mode(c.ceil)
                               .count_include_pad(c.include_pad)
                               .divisor_override(c.divisor));
    Tensor x = input(c.in, 50 + i);
    parity(
        "AvgPool2d case " + std::to_string(i), [&] { return m->forward(x); }, {{"x", x}},
        "y = F.avg_pool2d(x, " + list(c.k) + ", stride=" + list(c.stride) +
            ", padding=" + list(c.padding) + ", ceil_mode=" + (c.ceil ? "True" : "False") +
            ", count_include_pad=" + (c.include_pad ? "True" : "False") +
            ", divisor_override=" + (c.divisor ? std::to_string(*c.divisor) : "None") + ")");
  }
}

TEST(NnLayers, AdaptiveAvgPool2d) {
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{2, 3, 7, 7}, {3, 3}}, {{2, 2, 5, 9}, {2, 4}}, {{1, 4, 6, 6}, {1, 1}},
      {{2, 2, 4, 4}, {4, 4}}, {{3, 5, 5}, {7, 3}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    auto [in, out] = cases[i];
    auto m = nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(out));
    Tensor x = input(in, 60 + i);
    parity(
        "AdaptiveAvgPool2d case " + std::to_string(i), [&] { return m->forward(x); }, {{"x", x}},
        "y = F.adaptive_avg_pool2d(x, (" + std::to_string(out[0]) + ", " + std::to_string(out[1]) +
            "))");
  }
}

TEST(NnLayers, BatchNorm) {
  for (auto shape : std::vector<std::vector<int64_t>>{{8, 4}, {5, 4, 3}, {3, 4, 5, 2}}) {
    const bool two_d = shape.size() == 4;
    std::shared_ptr<nn::BatchNormImplBase> m;
    if (two_d) {
      m = nn::BatchNorm2d(4).ptr();
    } else {
      m = nn::BatchNorm1d(4).ptr();
    }
    m->to(kDouble);
    {
      NoGradGuard g;
      m->weight.copy_(rand({4}, kDouble) + 0.5);
      m->bias.copy_(randn({4}, kDouble));
      m->running_mean.copy_(randn({4}, kDouble));
      m->running_var.copy_(rand({4}, kDouble) + 0.5);
    }
    const std::string ctx = "BatchNorm dims=" + std::to_string(shape.size());
    // Training: batch statistics, running stats updated with momentum 0.1.
    Tensor rm0 = m->running_mean.clone(), rv0 = m->running_var.clone();
    Tensor x = input(shape, 70 + shape.size());
    parity(ctx + " train", [&] { return m->forward(x); },
           {{"x", x}, {"w", m->weight}, {"b", m->bias}},
           "rm = rm0.clone(); rv = rv0.clone()\n"
           "y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1, eps=1e-5)",
           1e-7, 1e-9, {{"rm0", rm0}, {"rv0", rv0}},
           {{"rm", m->running_mean}, {"rv", m->running_var}});
    EXPECT_EQ(m->num_batches_tracked.item<int64_t>(), 1);
    // Eval: the running statistics.
    m->eval();
    Tensor x2 = input(shape, 80 + shape.size());
    parity(ctx + " eval", [&] { return m->forward(x2); },
           {{"x", x2}, {"w", m->weight}, {"b", m->bias}},
           "y = F.batch_norm(x, rm, rv, w, b, training=False, eps=1e-5)", 1e-7, 1e-9,
           {{"rm", m->running_mean.clone()}, {"rv", m->running_var.clone()}});
    EXPECT_EQ(m->num_batches_tracked.item<int64_t>(), 1);
  }
  // momentum=None: a cumulative average over the batches seen, as torch.nn.BatchNorm1d does.
  auto cm = nn::BatchNorm1d(nn::BatchNormOptions(3).momentum(std::nullopt).affine(false));
  cm->to(kDouble);
  Tensor a = input({6, 3}, 90), b = input({5, 3}, 91);
  cm->forward(a);
  cm->forward(b);
  auto r = TorchOracle::instance().run(
      "m = torch.nn.BatchNorm1d(3, momentum=None, affine=False).double()\n"
      "m(a); m(b)\nrm = m.running_mean; rv = m.running_var",
      {{"a", a.detach()}, {"b", b.detach()}}, {"rm", "rv"});
  expect_close(cm->running_mean, r.at("rm"), 1e-10, 1e-12, "cumulative running_mean");
  expect_close(cm->running_var, r.at("rv"), 1e-10, 1e-12, "cumulative running_var");
  // Without running stats, eval still normalises with the batch statistics.
  auto nm = nn::BatchNorm1d(nn::BatchNormOptions(3).track_running_stats(false));
  nm->to(kDouble);
  nm->eval();
  EXPECT_EQ(nm->buffers().size(), 0u);
  Tensor xa = input({4, 3}, 92);
  parity(
      "BatchNorm no running stats", [&] { return nm->forward(xa); },
      {{"x", xa}, {"w", nm->weight}, {"b", nm->bias}},
      "y = F.batch_norm(x, None, None, w, b, training=True)");
}

TEST(NnLayers, GroupNorm) {
  for (bool affine : {true, false}) {
    auto m = nn::GroupNorm(nn::GroupNormOptions(3, 6).eps(1e-3).affine(affine));
    m->to(kDouble);
    if (affine) {
      NoGradGuard no_grad;
      m->weight.copy_(input({6}, 90));
      m->bias.copy_(input({6}, 91));
    }
    Tensor x = input({2, 6, 4, 3}, 92);
    Leaves leaves{{"x", x}};
    if (affine) leaves.insert(leaves.end(), {{"w", m->weight}, {"b", m->bias}});
    parity(
        std::string("GroupNorm affine=") + (affine ? "true" : "false"),
        [&] { return m->forward(x); }, leaves,
        affine ? "y = F.group_norm(x, 3, w, b, eps=1e-3)" : "y = F.group_norm(x, 3, eps=1e-3)");
  }
  // 1 group (layer norm over everything but the batch) and C groups (instance norm), 3-D input.
  Tensor x = input({3, 4, 5}, 93);
  parity(
      "group_norm 1 group", [&] { return F::group_norm(x, F::GroupNormFuncOptions(1)); },
      {{"x", x}}, "y = F.group_norm(x, 1)");
  parity(
      "group_norm C groups", [&] { return F::group_norm(x, 4); }, {{"x", x}},
      "y = F.group_norm(x, 4)");
  using ember::testing::contains;
  using ember::testing::error_of;
  std::string e = error_of([&] { F::group_norm(x, 3); });
  EXPECT_TRUE(contains(e,
                       "Expected number of channels in input to be divisible by num_groups, "
                       "but got input of shape [3, 4, 5] and num_groups=3"))
      << e;
  e = error_of([&] { nn::GroupNorm(3, 4); });
  EXPECT_TRUE(contains(e, "num_channels must be divisible by num_groups")) << e;
}

TEST(NnLayers, InstanceNorm) {
  // Running statistics: updated in training from the samples' mean, used in eval.
  auto m = nn::InstanceNorm2d(
      nn::InstanceNorm2dOptions(3).affine(true).track_running_stats(true).momentum(0.2));
  m->to(kDouble);
  {
    NoGradGuard no_grad;
    m->weight.copy_(input({3}, 100));
    m->bias.copy_(input({3}, 101));
  }
  Tensor x = input({2, 3, 4, 5}, 102);
  parity("InstanceNorm2d train", [&] { return m->forward(x); },
         {{"x", x}, {"w", m->weight}, {"b", m->bias}},
         "rm = torch.zeros(3, dtype=torch.float64)\nrv = torch.ones(3, dtype=torch.float64)\n"
         "y = F.instance_norm(x, rm, rv, w, b, use_input_stats=True, momentum=0.2)",
         1e-7, 1e-9, {}, {{"rm", m->running_mean}, {"rv", m->running_var}});
  EXPECT_EQ(m->num_batches_tracked.item<int64_t>(), 0);  // PyTorch does not count them
  m->eval();
  Tensor rm = m->running_mean.clone(), rv = m->running_var.clone();
  parity("InstanceNorm2d eval", [&] { return m->forward(x); },
         {{"x", x}, {"w", m->weight}, {"b", m->bias}},
         "y = F.instance_norm(x, rm, rv, w, b, use_input_stats=False)", 1e-7, 1e-9,
         {{"rm", rm}, {"rv", rv}});
  // Without running statistics eval mode normalises by the input's own; unbatched input.
  auto plain = nn::InstanceNorm1d(4);
  plain->eval();
  Tensor x1 = input({4, 7}, 103);
  parity(
      "InstanceNorm1d unbatched eval", [&] { return plain->forward(x1); }, {{"x", x1}},
      "y = F.instance_norm(x.unsqueeze(0)).squeeze(0)");
  using ember::testing::contains;
  using ember::testing::error_of;
  std::string e = error_of([&] { plain->forward(randn({2, 4, 1})); });
  EXPECT_TRUE(contains(e, "Expected more than 1 spatial element when training")) << e;
  e = error_of([&] { m->forward(randn({2, 3, 4})); });
  EXPECT_TRUE(contains(e, "expected 3D or 4D input (got 3D") || contains(e, "channels")) << e;
  e = error_of([&] { m->forward(randn({2, 3, 4, 5, 6})); });
  EXPECT_TRUE(contains(e, "expected 3D or 4D input (got 5D input")) << e;
}

TEST(NnLayers, NormalizationsPrintAsLibtorch) {
  EXPECT_EQ(str(nn::GroupNorm(2, 6)), "ember::nn::GroupNorm(2, 6, eps=1e-05, affine=true)");
  EXPECT_EQ(str(nn::InstanceNorm2d(3)),
            "ember::nn::InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=false, "
            "track_running_stats=false)");
}

TEST(NnLayers, FoldUnfoldBilinearLocalResponseNormBatchNorm3d) {
  Tensor x = input({2, 3, 5, 6}, 180);
  auto unfold = nn::Unfold(nn::UnfoldOptions({2, 3}).padding(1).stride({2, 1}));
  parity(
      "Unfold", [&] { return unfold->forward(x); }, {{"x", x}},
      "y = torch.nn.Unfold((2, 3), padding=1, stride=(2, 1))(x)");
  Tensor cols = input({12, 12}, 181);  // unbatched
  auto fold = nn::Fold(nn::FoldOptions({4, 5}, {2, 2}));
  parity(
      "Fold", [&] { return fold->forward(cols); }, {{"x", cols}},
      "y = torch.nn.Fold((4, 5), (2, 2))(x)");

  auto bilinear = nn::Bilinear(4, 5, 3);
  bilinear->to(kDouble);
  Tensor a = input({2, 6, 4}, 182), b = input({2, 6, 5}, 183);
  parity(
      "Bilinear", [&] { return bilinear->forward(a, b); },
      {{"a", a}, {"b", b}, {"w", bilinear->weight}, {"bias", bilinear->bias}},
      "y = F.bilinear(a, b, w, bias)");

  auto lrn = nn::LocalResponseNorm(nn::LocalResponseNormOptions(3).alpha(0.3).beta(0.5));
  Tensor x3 = input({2, 6, 7}, 184);
  parity(
      "LocalResponseNorm 3-D", [&] { return lrn->forward(x3); }, {{"x", x3}},
      "y = torch.nn.LocalResponseNorm(3, alpha=0.3, beta=0.5)(x)");
  Tensor x5 = input({2, 4, 2, 3, 2}, 185);
  parity(
      "LocalResponseNorm 5-D", [&] { return lrn->forward(x5); }, {{"x", x5}},
      "y = torch.nn.LocalResponseNorm(3, alpha=0.3, beta=0.5)(x)");

  auto bn = nn::BatchNorm3d(3);
  bn->to(kDouble);
  Tensor v = input({2, 3, 2, 3, 4}, 186);
  parity("BatchNorm3d", [&] { return bn->forward(v); },
         {{"x", v}, {"w", bn->weight}, {"b", bn->bias}},
         "rm = torch.zeros(3, dtype=torch.float64)\nrv = torch.ones(3, dtype=torch.float64)\n"
         "y = F.batch_norm(x, rm, rv, w, b, training=True)",
         1e-7, 1e-9, {}, {{"rm", bn->running_mean}, {"rv", bn->running_var}});

  EXPECT_EQ(str(fold),
            "ember::nn::Fold(output_size=[4, 5], kernel_size=[2, 2], dilation=[1, 1], "
            "padding=[0, 0], stride=[1, 1])");
  EXPECT_EQ(str(bilinear),
            "ember::nn::Bilinear(in1_features=4, in2_features=5, out_features=3, bias=true)");
  EXPECT_EQ(str(lrn), "ember::nn::LocalResponseNorm(3, alpha=0.3, beta=0.5, k=1)");
  EXPECT_EQ(str(bn),
            "ember::nn::BatchNorm3d(3, eps=1e-05, momentum=0.1, affine=true, "
            "track_running_stats=true)");
  using ember::testing::contains;
  using ember::testing::error_of;
  std::string e = error_of([&] { bn->forward(randn({2, 3, 4, 4})); });
  EXPECT_TRUE(contains(e, "expected 5D input (got 4D input")) << e;
  e = error_of([&] { bilinear->forward(a, input({2, 6, 4}, 187)); });
  EXPECT_TRUE(contains(e, "input2 size does not match weight size: got 4 but expected 5")) << e;
  e = error_of([&] { unfold->forward(randn({5, 6})); });
  EXPECT_TRUE(contains(e, "Only unbatched (3D) or batched (4D) input Tensors are supported")) << e;
  e = error_of([&] { lrn->forward(randn({2, 3})); });
  EXPECT_TRUE(contains(e, "Expected 3D or higher dimensionality input")) << e;
}

TEST(NnLayers, LayerNorm) {
  for (auto norm : std::vector<std::vector<int64_t>>{{5}, {4, 5}}) {
    for (bool affine : {true, false}) {
      auto m = nn::LayerNorm(nn::LayerNormOptions(norm).elementwise_affine(affine).eps(1e-3));
      m->to(kDouble);
      if (affine) {
        NoGradGuard g;
        m->weight.copy_(randn(norm, kDouble));
        m->bias.copy_(randn(norm, kDouble));
      }
      Tensor x = input({3, 4, 5}, 100 + norm.size());
      std::string shape = norm.size() == 1 ? "(5,)" : "(4, 5)";
      Leaves leaves{{"x", x}};
      std::string py = "y = F.layer_norm(x, " + shape + ", eps=1e-3)";
      if (affine) {
        leaves.push_back({"w", m->weight});
        leaves.push_back({"b", m->bias});
        py = "y = F.layer_norm(x, " + shape + ", w, b, eps=1e-3)";
      }
      parity(
          "LayerNorm " + shape + " affine=" + std::to_string(affine), [&] { return m->forward(x); },
          leaves, py);
    }
  }
}

TEST(NnLayers, Embedding) {
  for (std::optional<int64_t> pad : {std::optional<int64_t>(), std::optional<int64_t>(2)}) {
    auto m = nn::Embedding(nn::EmbeddingOptions(6, 4).padding_idx(pad));
    m->to(kDouble);
    Tensor idx = tensor({{0, 2, 5}, {2, 2, 1}});
    parity(std::string("Embedding padding_idx=") + (pad ? "2" : "None"),
           [&] { return m->forward(idx); }, {{"w", m->weight}},
           std::string("y = F.embedding(idx, w, padding_idx=") + (pad ? "2" : "None") + ")", 1e-7,
           1e-9, {{"idx", idx}});
  }
  Tensor pre = randn({3, 2});
  auto frozen = nn::Embedding::from_pretrained(pre);
  EXPECT_FALSE(frozen->weight.requires_grad());
  EXPECT_TRUE(equal(frozen->forward(tensor({2, 0})), index_select(pre, 0, tensor({2, 0}))));
  auto trainable =
      nn::Embedding::from_pretrained(pre, nn::EmbeddingFromPretrainedOptions().freeze(false));
  EXPECT_TRUE(trainable->weight.requires_grad());
}

TEST(NnLayers, Activations) {
  Tensor x = input({4, 5}, 110);
  struct Case {
    std::string name;
    std::function<Tensor()> f;
    std::string py;
  };
  auto relu = nn::ReLU();
  auto gelu = nn::GELU();
  auto gelu_tanh = nn::GELU(nn::GELUOptions().approximate("tanh"));
  auto silu = nn::SiLU();
  auto sigmoid = nn::Sigmoid();
  auto tanh_ = nn::Tanh();
  auto softmax = nn::Softmax(1);
  auto log_softmax = nn::LogSoftmax(0);
  auto flatten = nn::Flatten(nn::FlattenOptions().start_dim(0));
  std::vector<Case> cases = {
      {"ReLU", [&] { return relu(x); }, "y = F.relu(x)"},
      {"GELU", [&] { return gelu(x); }, "y = F.gelu(x)"},
      {"GELU tanh", [&] { return gelu_tanh(x); }, "y = F.gelu(x, approximate='tanh')"},
      {"SiLU", [&] { return silu(x); }, "y = F.silu(x)"},
      {"Sigmoid", [&] { return sigmoid(x); }, "y = torch.sigmoid(x)"},
      {"Tanh", [&] { return tanh_(x); }, "y = torch.tanh(x)"},
      {"Softmax", [&] { return softmax(x); }, "y = F.softmax(x, 1)"},
      {"LogSoftmax", [&] { return log_softmax(x); }, "y = F.log_softmax(x, 0)"},
      {"Flatten", [&] { return flatten(x); }, "y = torch.flatten(x)"},
      {"F::softmax", [&] { return F::softmax(x, F::SoftmaxFuncOptions(0)); },
       "y = F.softmax(x, 0)"},
      {"F::log_softmax", [&] { return F::log_softmax(x, 1); }, "y = F.log_softmax(x, 1)"},
  };
  for (const auto& c : cases) parity(c.name, c.f, {{"x", x}}, c.py, 1e-7, 1e-9);
}

TEST(NnLayers, MoreActivations) {
  // Each module against PyTorch's of the same options, forward and input gradient.
  struct Case {
    std::function<Tensor(const Tensor&)> forward;
    std::string torch_module;
    std::string printout;
  };
  auto case_of = [](auto module, std::string torch_module) {
    std::ostringstream os;
    os << *module;
    return Case{[module](const Tensor& x) mutable { return module->forward(x); },
                std::move(torch_module), os.str()};
  };
  std::vector<Case> cases = {
      case_of(nn::ReLU6(), "ReLU6()"),
      case_of(nn::SELU(), "SELU()"),
      case_of(nn::CELU(nn::CELUOptions().alpha(0.7)), "CELU(alpha=0.7)"),
      case_of(nn::Hardshrink(0.3), "Hardshrink(0.3)"),
      case_of(nn::Softshrink(nn::SoftshrinkOptions(0.4)), "Softshrink(0.4)"),
      case_of(nn::Threshold(0.2, -1.5), "Threshold(0.2, -1.5)"),
      case_of(nn::GLU(1), "GLU(1)"),
      case_of(nn::Softmin(1), "Softmin(1)"),
      case_of(nn::Mish(), "Mish()"),
      case_of(nn::Hardswish(), "Hardswish()"),
      case_of(nn::Hardsigmoid(), "Hardsigmoid()"),
      case_of(nn::Softsign(), "Softsign()"),
      case_of(nn::Tanhshrink(), "Tanhshrink()"),
      case_of(nn::LogSigmoid(), "LogSigmoid()"),
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    Tensor x = (input({4, 6}, 110 + i) * 3).detach().requires_grad_();
    parity(
        cases[i].torch_module, [&] { return cases[i].forward(x); }, {{"x", x}},
        "y = torch.nn." + cases[i].torch_module + "(x)");
  }
  // PReLU: one slope per channel, learned (its gradient too).
  auto prelu = nn::PReLU(nn::PReLUOptions().num_parameters(3).init(0.1));
  prelu->to(kDouble);
  EXPECT_TRUE(allclose(prelu->weight, full({3}, 0.1, kDouble)));
  Tensor x = input({2, 3, 4}, 130);
  parity(
      "PReLU", [&] { return prelu->forward(x); }, {{"x", x}, {"w", prelu->weight}},
      "y = F.prelu(x, w)");
  // In place: the input holds the result.
  Tensor y = input({5}, 131).detach();
  Tensor expected = F::selu(y);
  nn::SELU(nn::SELUOptions(true))->forward(y);
  EXPECT_TRUE(allclose(y, expected));

  using ember::testing::contains;
  using ember::testing::error_of;
  std::string e = error_of([&] { F::glu(randn({3, 5}), F::GLUFuncOptions(1)); });
  EXPECT_TRUE(contains(e, "Halving dimension must be even, but dimension 1 is size 5")) << e;
  e = error_of([&] { prelu->forward(randn({2, 4}, kDouble)); });
  EXPECT_TRUE(contains(e, "Found parameter numbers = 3 and channel size = 4")) << e;
  e = error_of([&] { F::softshrink(randn({3}), -1.0); });
  EXPECT_TRUE(contains(e, "lambda must be greater or equal to 0")) << e;
}

TEST(NnLayers, MoreActivationsPrintAsLibtorch) {
  EXPECT_EQ(str(nn::ReLU6()), "ember::nn::ReLU6()");
  EXPECT_EQ(str(nn::ReLU6(nn::ReLU6Options(true))), "ember::nn::ReLU6(inplace=true)");
  EXPECT_EQ(str(nn::CELU(nn::CELUOptions().alpha(0.5))), "ember::nn::CELU(alpha=0.5)");
  EXPECT_EQ(str(nn::Hardshrink()), "ember::nn::Hardshrink(0.5)");
  EXPECT_EQ(str(nn::Threshold(0.1, 20)), "ember::nn::Threshold(threshold=0.1, value=20)");
  EXPECT_EQ(str(nn::GLU()), "ember::nn::GLU(dim=-1)");
  EXPECT_EQ(str(nn::PReLU()), "ember::nn::PReLU(num_parameters=1)");
  EXPECT_EQ(str(nn::Softmin(1)), "ember::nn::Softmin(dim=1)");
  EXPECT_EQ(str(nn::Mish()), "ember::nn::Mish()");
  EXPECT_EQ(str(nn::LogSigmoid()), "ember::nn::LogSigmoid()");
}

TEST(NnLayers, ShuffleUpsampleUnflattenIdentity) {
  Tensor x = input({2, 8, 3, 4}, 140);
  auto shuffle = nn::PixelShuffle(2);
  parity(
      "PixelShuffle", [&] { return shuffle->forward(x); }, {{"x", x}},
      "y = torch.nn.PixelShuffle(2)(x)");
  auto unshuffle = nn::PixelUnshuffle(nn::PixelUnshuffleOptions(2));
  Tensor z = input({3, 6, 4}, 141);  // unbatched
  parity(
      "PixelUnshuffle", [&] { return unshuffle->forward(z); }, {{"x", z}},
      "y = torch.nn.PixelUnshuffle(2)(x)");
  EXPECT_TRUE(equal(F::pixel_unshuffle(F::pixel_shuffle(x, 2), 2), x));
  auto channels = nn::ChannelShuffle(4);
  parity(
      "ChannelShuffle", [&] { return channels->forward(x); }, {{"x", x}},
      "y = x.reshape(2, 4, 2, 3, 4).transpose(1, 2).reshape(2, 8, 3, 4)");

  auto nearest = nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 3}));
  parity(
      "Upsample nearest", [&] { return nearest->forward(x); }, {{"x", x}},
      "y = torch.nn.Upsample(scale_factor=(2, 3))(x)");
  auto bilinear = nn::Upsample(
      nn::UpsampleOptions().size(std::vector<int64_t>{5, 7}).mode(kBilinear).align_corners(true));
  parity(
      "Upsample bilinear", [&] { return bilinear->forward(x); }, {{"x", x}},
      "y = torch.nn.Upsample(size=(5, 7), mode='bilinear', align_corners=True)(x)");

  auto unflatten = nn::Unflatten(1, std::vector<int64_t>{2, -1});
  parity(
      "Unflatten", [&] { return unflatten->forward(x); }, {{"x", x}},
      "y = torch.nn.Unflatten(1, (2, -1))(x)");
  EXPECT_TRUE(nn::Identity()->forward(x).is_same(x));

  EXPECT_EQ(str(shuffle), "ember::nn::PixelShuffle(upscale_factor=2)");
  EXPECT_EQ(str(unshuffle), "ember::nn::PixelUnshuffle(downscale_factor=2)");
  EXPECT_EQ(str(nearest), "ember::nn::Upsample(scale_factor=[2, 3], mode=kNearest)");
  EXPECT_EQ(str(bilinear), "ember::nn::Upsample(size=[5, 7], mode=kBilinear)");
  EXPECT_EQ(str(unflatten), "ember::nn::Unflatten(dim=1, unflattened_size={2, -1})");
  EXPECT_EQ(str(nn::Identity()), "ember::nn::Identity()");

  using ember::testing::contains;
  using ember::testing::error_of;
  std::string e = error_of([&] { F::pixel_shuffle(randn({2, 7, 3, 3}), 2); });
  EXPECT_TRUE(contains(e, "input.size(-3)=7 is not divisible by 4")) << e;
  e = error_of([&] { F::pixel_unshuffle(randn({2, 2, 5, 4}), 2); });
  EXPECT_TRUE(contains(e, "input.size(-2)=5 is not divisible by 2")) << e;
  e = error_of([&] { pixel_shuffle(randn({4, 4}), 2); });
  EXPECT_TRUE(contains(e, "at least 3 dimensions, but got input with 2 dimension(s)")) << e;
  e = error_of([&] { channel_shuffle(randn({2, 5, 3}), 2); });
  EXPECT_TRUE(contains(e, "Number of channels must be divisible by groups")) << e;
}

TEST(NnLayers, PaddingModules) {
  struct Case {
    std::function<Tensor(const Tensor&)> forward;
    std::string printout, torch_module;
    std::vector<int64_t> shape;
  };
  auto case_of = [](auto module, std::string torch_module, std::vector<int64_t> shape) {
    std::ostringstream os;
    os << *module;
    return Case{[module](const Tensor& x) mutable { return module->forward(x); }, os.str(),
                std::move(torch_module), std::move(shape)};
  };
  std::vector<Case> cases = {
      case_of(nn::ReflectionPad1d(2), "ReflectionPad1d(2)", {2, 3, 5}),
      case_of(nn::ReflectionPad2d(ExpandingArray<4>({1, 0, 2, 1})), "ReflectionPad2d((1, 0, 2, 1))",
              {1, 2, 4, 5}),
      case_of(nn::ReflectionPad3d(1), "ReflectionPad3d(1)", {1, 1, 3, 3, 3}),
      case_of(nn::ReplicationPad1d(ExpandingArray<2>({1, 3})), "ReplicationPad1d((1, 3))",
              {2, 3, 4}),
      case_of(nn::ReplicationPad2d(2), "ReplicationPad2d(2)", {1, 2, 3, 3}),
      case_of(nn::ReplicationPad3d(nn::ReplicationPad3dOptions({1, 0, 0, 1, 1, 0})),
              "ReplicationPad3d((1, 0, 0, 1, 1, 0))", {1, 2, 2, 3, 3}),
      case_of(nn::ConstantPad1d(2, 3.5), "ConstantPad1d(2, 3.5)", {2, 4}),
      case_of(nn::ConstantPad2d(ExpandingArray<4>({1, 0, 2, 1}), -1.0),
              "ConstantPad2d((1, 0, 2, 1), -1.0)", {2, 3, 3}),
      case_of(nn::ConstantPad3d(1, 0.5), "ConstantPad3d(1, 0.5)", {1, 2, 2, 2}),
      case_of(nn::ZeroPad2d(ExpandingArray<4>({1, 1, 2, 0})), "ZeroPad2d((1, 1, 2, 0))",
              {1, 2, 3, 3}),
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    Tensor x = input(cases[i].shape, 150 + i);
    parity(
        cases[i].torch_module, [&] { return cases[i].forward(x); }, {{"x", x}},
        "y = torch.nn." + cases[i].torch_module + "(x)");
  }
  EXPECT_EQ(cases[1].printout, "ember::nn::ReflectionPad2d(padding=[1, 0, 2, 1])");
  EXPECT_EQ(cases[6].printout, "ember::nn::ConstantPad1d(padding=[2, 2], value=3.5)");
  EXPECT_EQ(cases[9].printout, "ember::nn::ZeroPad2d(padding=[1, 1, 2, 0])");
  // Reflection wider than the input is refused, naming the sizes; the module still works after.
  auto reflect = nn::ReflectionPad1d(3);
  const std::string e = ember::testing::error_of([&] { reflect->forward(randn({1, 1, 3})); });
  EXPECT_NE(e, "<no exception>");
  EXPECT_EQ(reflect->forward(randn({1, 1, 4})).sizes().vec(), (std::vector<int64_t>{1, 1, 10}));
}

TEST(NnLayers, DropoutVariants) {
  manual_seed(7);
  // Dropout2d drops whole channels: each (sample, channel) plane is all 0 or all 1 / (1 - p),
  // and the gradient is the same mask.
  auto d2 = nn::Dropout2d(0.5);
  Tensor x = ones({8, 16, 5, 5}, kDouble).requires_grad_();
  Tensor y = d2->forward(x);
  y.sum().backward();
  Tensor per_channel = y.amax({2, 3}), per_channel_min = y.amin({2, 3});
  EXPECT_TRUE(equal(per_channel, per_channel_min));
  EXPECT_TRUE(equal(x.grad(), y.detach()));
  const double dropped = (per_channel == 0).to(kDouble).mean().item<double>();
  EXPECT_GT(dropped, 0.3);
  EXPECT_LT(dropped, 0.7);
  EXPECT_TRUE(equal((per_channel != 0).to(kDouble) * 2, per_channel));
  d2->eval();
  EXPECT_TRUE(equal(d2->forward(x), x));

  // Dropout1d on an unbatched [C, L] input drops whole rows; Dropout3d on [N, C, D, H, W].
  auto d1 = nn::Dropout1d(nn::DropoutOptions(0.5));
  Tensor r = d1->forward(ones({64, 7}));
  EXPECT_TRUE(equal(r.amax(1), r.amin(1)));
  Tensor v = nn::Dropout3d(0.25)->forward(ones({4, 8, 2, 3, 2}));
  EXPECT_TRUE(equal(v.amax({2, 3, 4}), v.amin({2, 3, 4})));

  // AlphaDropout keeps a standard normal input's mean 0 and variance 1.
  auto alpha = nn::AlphaDropout(0.2);
  Tensor z = randn({200000}, kDouble);
  Tensor out = alpha->forward(z);
  EXPECT_NEAR(out.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(out.std().item<double>(), 1.0, 0.02);
  // Dropped elements hold one value, a * alpha * (p - 1), alpha = 1.7580993408473766.
  const double a = 1.0 / std::sqrt((1.7580993408473766 * 1.7580993408473766 * 0.2 + 1) * 0.8);
  const double dropped_value = a * 1.7580993408473766 * (0.2 - 1);
  const double share = (out - dropped_value).abs().lt(1e-12).to(kDouble).mean().item<double>();
  EXPECT_NEAR(share, 0.2, 0.01);
  alpha->eval();
  EXPECT_TRUE(equal(alpha->forward(z), z));
  Tensor f = nn::FeatureAlphaDropout(0.5)->forward(zeros({6, 10, 4}, kDouble));
  EXPECT_TRUE(equal(f.amax(2), f.amin(2)));

  // Printout and bad input.
  std::ostringstream os;
  os << *nn::Dropout2d(nn::DropoutOptions(0.3).inplace(true));
  EXPECT_EQ(os.str(), "ember::nn::Dropout2d(p=0.3, inplace=true)");
  const std::string e = ember::testing::error_of([] { nn::AlphaDropout(1.5); });
  EXPECT_TRUE(
      ember::testing::contains(e, "dropout probability has to be between 0 and 1, but got 1.5"))
      << e;
}

TEST(NnLayers, Dropout) {
  manual_seed(5);
  auto m = nn::Dropout(0.3);
  Tensor x = (rand({200, 100}, kDouble) + 1).requires_grad_();
  Tensor y = m->forward(x);
  y.sum().backward();
  // Each element is either dropped (0, gradient 0) or kept and scaled by 1 / (1 - p).
  Tensor kept = y.ne(0);
  const double frac = kept.to(kDouble).mean().item<double>();
  EXPECT_NEAR(frac, 0.7, 0.02);
  EXPECT_TRUE(allclose(where(kept, x / 0.7, zeros_like(x)), y.detach()));
  EXPECT_TRUE(allclose(x.grad(), kept.to(kDouble) / 0.7));
  m->eval();
  EXPECT_TRUE(m->forward(x).is_same(x));
  EXPECT_TRUE(F::dropout(x, F::DropoutFuncOptions().training(false)).is_same(x));
  EXPECT_EQ(F::dropout(x, F::DropoutFuncOptions().p(1.0)).abs().sum().item<double>(), 0.0);
}

TEST(NnLayers, SmallCnnTrainingStepMatchesPyTorch) {
  // A whole network: conv -> bn -> relu -> pool -> flatten -> linear -> cross entropy.
  auto net = nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 4, 3).padding(1)), nn::BatchNorm2d(4),
                            nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(), nn::Linear(4 * 4 * 4, 3));
  net->to(kDouble);
  Tensor x = input({5, 1, 8, 8}, 120);
  Tensor target = tensor({0, 2, 1, 1, 0});
  Tensor loss = F::cross_entropy(net->forward(x), target);
  loss.backward();
  auto p = net->named_parameters();
  std::map<std::string, Tensor> in{{"x", x.detach()}, {"t", target}};
  std::string copy = "with torch.no_grad():\n    params = dict(net.named_parameters())\n";
  for (const auto& it : p) {
    std::string key = it.key();
    std::replace(key.begin(), key.end(), '.', '_');
    in["p_" + key] = it.value().detach();
    copy += "    params['" + it.key() + "'].copy_(p_" + key + ")\n";
  }
  auto r = TorchOracle::instance().run(
      "net = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.BatchNorm2d(4),\n"
      "    torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(64, "
      "3)).double()\n" +
          copy +
          "loss = F.cross_entropy(net(x), t)\nloss.backward()\n"
          "g_0_weight = net[0].weight.grad; g_5_weight = net[5].weight.grad; g_1_bias = "
          "net[1].bias.grad\n"
          "rm = net[1].running_mean",
      in, {"loss", "g_0_weight", "g_5_weight", "g_1_bias", "rm"});
  expect_close(loss, r.at("loss"), 1e-9, 1e-11, "loss");
  expect_close(p["0.weight"].grad(), r.at("g_0_weight"), 1e-8, 1e-10, "conv weight grad");
  expect_close(p["5.weight"].grad(), r.at("g_5_weight"), 1e-8, 1e-10, "linear weight grad");
  expect_close(p["1.bias"].grad(), r.at("g_1_bias"), 1e-8, 1e-10, "bn bias grad");
  expect_close(net->named_buffers()["1.running_mean"], r.at("rm"), 1e-9, 1e-11, "running_mean");
}

TEST(NnLayers, CudaMatchesCpu) {
  EMBER_SKIP_WITHOUT_CUDA();
  manual_seed(7);
  auto net = nn::Sequential(nn::Conv2d(nn::Conv2dOptions(2, 4, 3).padding(1).groups(2)),
                            nn::BatchNorm2d(4), nn::ReLU(), nn::AvgPool2d(2),
                            nn::AdaptiveAvgPool2d(2), nn::Flatten(), nn::Linear(16, 5));
  net->to(kDouble);
  auto sd = net->state_dict();  // shares storage with the buffers: keep the values before training
  for (auto& item : sd) item.value() = item.value().clone();
  Tensor x = randn({3, 2, 8, 8}, kDouble);
  Tensor t = tensor({0, 4, 2});
  Tensor loss =
      F::cross_entropy(net->forward(x), t, F::CrossEntropyFuncOptions().label_smoothing(0.1));
  loss.backward();
  std::map<std::string, Tensor> cpu_grads;
  for (const auto& it : net->named_parameters()) cpu_grads[it.key()] = it.value().grad().clone();

  auto gpu = nn::Sequential(nn::Conv2d(nn::Conv2dOptions(2, 4, 3).padding(1).groups(2)),
                            nn::BatchNorm2d(4), nn::ReLU(), nn::AvgPool2d(2),
                            nn::AdaptiveAvgPool2d(2), nn::Flatten(), nn::Linear(16, 5));
  gpu->to(kDouble);
  Tensor w = gpu[0]->as<nn::Conv2d>()->weight;
  gpu->to(Device("cuda:0"));
  EXPECT_TRUE(w.is_cuda());  // the handle taken before the move sees it
  gpu->load_state_dict(sd);
  Tensor gloss = F::cross_entropy(gpu->forward(x.cuda()), t.cuda(),
                                  F::CrossEntropyFuncOptions().label_smoothing(0.1));
  gloss.backward();
  expect_close(gloss.cpu(), loss, 1e-9, 1e-11, "loss on cuda");
  for (const auto& it : gpu->named_parameters()) {
    ASSERT_TRUE(it.value().grad().is_cuda()) << it.key();
    expect_close(it.value().grad().cpu(), cpu_grads[it.key()], 1e-8, 1e-10,
                 "cuda grad " + it.key());
  }
  expect_close(gpu->named_buffers()["1.running_var"].cpu(), net->named_buffers()["1.running_var"],
               1e-9, 1e-11, "running_var on cuda");
}
