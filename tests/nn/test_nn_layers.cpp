// Layers against PyTorch: identical weights in both, then outputs and the gradients of the input
// and of every parameter after backward with the same upstream gradient.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/cuda_skip.h"
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

Tensor input(std::vector<int64_t> shape, uint64_t seed) {
  manual_seed(seed);
  return randn(shape, kDouble).requires_grad_();
}

}  // namespace

TEST(NnLayers, Linear) {
  for (bool bias : {true, false}) {
    for (auto shape : std::vector<std::vector<int64_t>>{{6, 5}, {2, 3, 5}, {5}}) {
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
