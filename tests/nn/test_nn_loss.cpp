// Losses against PyTorch (values and input gradients for every reduction, weights,
// ignore_index and label smoothing), the module forms, numerical stability and bad targets.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "ember/ember.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::TorchOracle;
namespace F = ember::nn::functional;

namespace {

const char* py_reduction(int64_t r) {
  return r == Reduction::None ? "'none'" : r == Reduction::Mean ? "'mean'" : "'sum'";
}

nn::reduction_t tag(int64_t r) {
  if (r == Reduction::None) return kNone;
  if (r == Reduction::Mean) return kMean;
  return kSum;
}

// Compares loss(x, ...) and d loss / d x (and d loss / d target when it requires grad).
void loss_parity(const std::string& ctx, const std::function<Tensor()>& f, const Tensor& x,
                 const std::string& py, std::map<std::string, Tensor> in, const Tensor& target = {},
                 double rtol = 1e-7, double atol = 1e-10) {
  x.mutable_grad().reset();
  if (target.defined() && target.requires_grad()) target.mutable_grad().reset();
  Tensor y = f();
  Tensor gy = randn(y.sizes(), y.options());
  y.backward(gy);
  in["x"] = x;
  in["gy"] = gy;
  std::vector<std::string> outs{"y", "gx"};
  std::string code = py + "\ny.backward(gy)\ngx = x.grad\n";
  if (target.defined() && target.requires_grad()) {
    in["t"] = target;
    code += "gt = t.grad\n";
    outs.push_back("gt");
  }
  auto r = TorchOracle::instance().run(code, in, outs);
  expect_close(y, r.at("y"), rtol, atol, ctx + ": loss");
  expect_close(x.grad(), r.at("gx"), rtol, atol, ctx + ": grad of input");
  if (target.defined() && target.requires_grad()) {
    expect_close(target.grad(), r.at("gt"), rtol, atol, ctx + ": grad of target");
  }
}

Tensor logits(std::vector<int64_t> shape, uint64_t seed) {
  manual_seed(seed);
  return (randn(shape, kDouble) * 2).requires_grad_();
}

}  // namespace

TEST(NnLoss, CrossEntropyClassIndices) {
  Tensor target = tensor({0, 3, -100, 2, 4, 1, -100});
  Tensor weight = tensor({0.5, 1.0, 2.0, 1.5, 0.25}, kDouble);
  for (int64_t red : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
    for (double ls : {0.0, 0.1}) {
      for (bool weighted : {false, true}) {
        Tensor x = logits({7, 5}, 1);
        auto opts =
            F::CrossEntropyFuncOptions().ignore_index(-100).label_smoothing(ls).reduction(tag(red));
        if (weighted) opts.weight(weight);
        const std::string ctx = std::string("cross_entropy reduction=") + py_reduction(red) +
                                " ls=" + std::to_string(ls) +
                                " weighted=" + std::to_string(weighted);
        loss_parity(ctx, [&] { return F::cross_entropy(x, target, opts); }, x,
                    std::string("y = F.cross_entropy(x, t, weight=") + (weighted ? "w" : "None") +
                        ", ignore_index=-100, reduction=" + py_reduction(red) +
                        ", label_smoothing=" + std::to_string(ls) + ")",
                    {{"t", target}, {"w", weight}});
      }
    }
  }
  // Another ignore_index, spatial [N, C, H, W] inputs, an unbatched input.
  Tensor x4 = logits({2, 4, 3, 2}, 2);
  Tensor t4 = tensor({{{0, 1}, {3, 2}, {1, 1}}, {{2, 2}, {0, 3}, {1, 0}}});
  loss_parity("cross_entropy 4-D ignore_index=1 ls=0.2",
              [&] {
                return F::cross_entropy(
                    x4, t4, F::CrossEntropyFuncOptions().ignore_index(1).label_smoothing(0.2));
              },
              x4, "y = F.cross_entropy(x, t, ignore_index=1, label_smoothing=0.2)", {{"t", t4}});
  Tensor x1 = logits({6}, 3);
  loss_parity("cross_entropy unbatched", [&] { return F::cross_entropy(x1, tensor(4)); }, x1,
              "y = F.cross_entropy(x, t)", {{"t", tensor(4)}});
  // The module form and ember::cross_entropy_loss.
  Tensor x = logits({7, 5}, 4);
  auto ce =
      nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().weight(weight).label_smoothing(0.05));
  loss_parity("CrossEntropyLoss module", [&] { return ce(x, target); }, x,
              "y = torch.nn.CrossEntropyLoss(weight=w, label_smoothing=0.05)(x, t)",
              {{"t", target}, {"w", weight}});
  EXPECT_TRUE(
      allclose(cross_entropy_loss(x, target, weight, Reduction::Sum),
               F::cross_entropy(x, target, F::CrossEntropyFuncOptions(kSum).weight(weight))));
}

TEST(NnLoss, CrossEntropyProbabilities) {
  Tensor weight = tensor({0.5, 1.0, 2.0, 1.5}, kDouble);
  for (int64_t red : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
    Tensor x = logits({5, 4}, 5);
    Tensor probs = softmax(randn({5, 4}, kDouble), 1);
    loss_parity(
        std::string("cross_entropy probabilities ") + py_reduction(red),
        [&] {
          return F::cross_entropy(
              x, probs,
              F::CrossEntropyFuncOptions().reduction(tag(red)).label_smoothing(0.1).weight(weight));
        },
        x,
        std::string("y = F.cross_entropy(x, p, weight=w, label_smoothing=0.1, reduction=") +
            py_reduction(red) + ")",
        {{"p", probs}, {"w", weight}});
  }
}

TEST(NnLoss, NllLoss) {
  Tensor target = tensor({1, 0, 2, 2, -100});
  Tensor weight = tensor({2.0, 1.0, 0.5}, kDouble);
  for (int64_t red : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
    for (bool weighted : {false, true}) {
      Tensor x = logits({5, 3}, 6);
      auto opts = F::NLLLossFuncOptions().reduction(tag(red));
      if (weighted) opts.weight(weight);
      loss_parity(std::string("nll_loss ") + py_reduction(red) + (weighted ? " weighted" : ""),
                  [&] { return F::nll_loss(log_softmax(x, 1), target, opts); }, x,
                  std::string("y = F.nll_loss(F.log_softmax(x, 1), t, weight=") +
                      (weighted ? "w" : "None") + ", reduction=" + py_reduction(red) + ")",
                  {{"t", target}, {"w", weight}});
    }
  }
  Tensor x = logits({5, 3}, 7);
  auto m = nn::NLLLoss(nn::NLLLossOptions().ignore_index(2));
  loss_parity("NLLLoss module ignore_index=2", [&] { return m(x, target.clamp(0)); }, x,
              "y = F.nll_loss(x, t.clamp(min=0), ignore_index=2)", {{"t", target}});
  EXPECT_TRUE(allclose(ember::nll_loss(x, target.clamp(0), {}, Reduction::Sum),
                       F::nll_loss(x, target.clamp(0), F::NLLLossFuncOptions(kSum))));
}

TEST(NnLoss, MseAndL1) {
  for (int64_t red : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
    Tensor x = logits({4, 3}, 8);
    manual_seed(9);
    Tensor t = randn({4, 3}, kDouble).requires_grad_();
    loss_parity(
        std::string("mse_loss ") + py_reduction(red),
        [&] { return F::mse_loss(x, t, F::MSELossFuncOptions(tag(red))); }, x,
        std::string("y = F.mse_loss(x, t, reduction=") + py_reduction(red) + ")", {}, t);
    loss_parity(
        std::string("l1_loss ") + py_reduction(red),
        [&] { return F::l1_loss(x, t, F::L1LossFuncOptions().reduction(tag(red))); }, x,
        std::string("y = F.l1_loss(x, t, reduction=") + py_reduction(red) + ")", {}, t);
  }
  Tensor x = logits({4, 3}, 10), t = randn({4, 3}, kDouble);
  EXPECT_TRUE(allclose(ember::mse_loss(x, t), nn::MSELoss()(x, t)));
  EXPECT_TRUE(allclose(ember::mse_loss(x, t, Reduction::Sum), nn::MSELoss(kSum)(x, t)));
  EXPECT_TRUE(allclose(ember::l1_loss(x, t), nn::L1Loss()(x, t)));
}

TEST(NnLoss, BinaryCrossEntropyWithLogits) {
  Tensor weight = tensor({1.0, 0.5, 2.0}, kDouble);
  Tensor pos_weight = tensor({3.0, 1.0, 0.2}, kDouble);
  for (int64_t red : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
    for (int variant = 0; variant < 3; ++variant) {
      Tensor x = logits({4, 3}, 11);
      manual_seed(12);
      Tensor t = rand({4, 3}, kDouble).requires_grad_();
      auto opts = F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(tag(red));
      std::string extra;
      if (variant >= 1) {
        opts.weight(weight);
        extra += ", weight=w";
      }
      if (variant == 2) {
        opts.pos_weight(pos_weight);
        extra += ", pos_weight=pw";
      }
      loss_parity(
          std::string("bce_with_logits ") + py_reduction(red) + extra,
          [&] { return F::binary_cross_entropy_with_logits(x, t, opts); }, x,
          std::string("y = F.binary_cross_entropy_with_logits(x, t, reduction=") +
              py_reduction(red) + extra + ")",
          {{"w", weight}, {"pw", pos_weight}}, t);
    }
  }
  // Extreme logits: finite loss and gradients, equal to PyTorch's.
  Tensor x = tensor({-200.0, -30.0, 0.0, 30.0, 200.0}, kDouble).requires_grad_();
  Tensor t = tensor({1.0, 0.0, 1.0, 1.0, 0.0}, kDouble);
  loss_parity("bce_with_logits extreme", [&] { return nn::BCEWithLogitsLoss(kSum)(x, t); }, x,
              "y = F.binary_cross_entropy_with_logits(x, t, reduction='sum')", {{"t", t}});
  Tensor xf = tensor({-100.0f, 100.0f}).requires_grad_();
  Tensor lf = F::binary_cross_entropy_with_logits(xf, tensor({1.0f, 0.0f}));
  EXPECT_NEAR(lf.item<double>(), 100.0, 1e-3);
}

TEST(NnLoss, BadTargets) {
  Tensor x = randn({3, 5});
  EXPECT_EQ(error_of<IndexError>([&] {
              F::cross_entropy(x, tensor({0, 7, 1}));
            }),
            "cross_entropy(): Target 7 is out of bounds: the input has 5 classes, so targets "
            "must be in [0, 5) or equal ignore_index (-100)");
  EXPECT_TRUE(error_of<IndexError>([&] {
                F::nll_loss(x, tensor({-1, 0, 1}));
              }).find("Target -1 is out of bounds: the input has 5 classes") != std::string::npos);
  // ignore_index itself is allowed anywhere.
  EXPECT_NO_THROW(F::cross_entropy(x, tensor({0, -100, 4})));
  EXPECT_TRUE(error_of<ValueError>([&] {
                F::cross_entropy(x, tensor({0, 1}));
              }).find("Expected input batch_size (3) to match target batch_size (2)") !=
              std::string::npos);
  EXPECT_TRUE(error_of<TypeError>([&] {
                F::nll_loss(x, tensor({0, 1, 2}, kInt));
              }).find("expected a target of dtype int64") != std::string::npos);
  EXPECT_TRUE(
      error_of<ValueError>([&] {
        F::cross_entropy(x, tensor({0, 1, 2}), F::CrossEntropyFuncOptions().label_smoothing(1.5));
      }).find("label_smoothing must be between 0.0 and 1.0. Got: 1.5") != std::string::npos);
  EXPECT_TRUE(
      error_of<ValueError>([&] {
        F::cross_entropy(x, tensor({0, 1, 2}), F::CrossEntropyFuncOptions().weight(ones({4})));
      }).find("weight tensor should be defined either for all 5 classes") != std::string::npos);
  EXPECT_EQ(error_of<ValueError>([&] {
              F::binary_cross_entropy_with_logits(x, zeros({3, 4}));
            }),
            "Target size ([3, 4]) must be the same as input size ([3, 5])");
  EXPECT_TRUE(error_of<ValueError>([&] {
                F::cross_entropy(x, rand({3, 4}));
              }).find("must have the input's shape [3, 5], got [3, 4]") != std::string::npos);
}
