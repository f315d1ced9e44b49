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

// The margin, ranking, embedding and count losses: each module, every reduction, against
// PyTorch's module of the same options; the first input's gradient is compared.
TEST(NnLoss, MarginRankingEmbeddingAndCountLosses) {
  manual_seed(21);
  Tensor x = logits({4, 5}, 22), x2 = logits({4, 5}, 23), x3 = logits({4, 5}, 24);
  Tensor sign = randn({4, 5}, kDouble).sign(), row_sign = randn({4}, kDouble).sign();
  Tensor probs = rand({4, 5}, kDouble).gt(0.5).to(kDouble);
  Tensor classes = randint(0, 5, {4});
  Tensor counts = rand({4, 5}, kDouble) * 4, var = rand({4, 5}, kDouble) + 0.1;
  // Listed classes up to the first -1, as multilabel_margin_loss reads them.
  Tensor listed =
      ember::tensor({3, 0, -1, 1, 1, 2, 4, -1, 0, 4, -1, 2, 0, 0, 0, 1, 3, 2, 4, -1}, kLong)
          .reshape({4, 5});
  for (int64_t r : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
    const std::string red = std::string("reduction=") + py_reduction(r);
    const std::map<std::string, Tensor> in{
        {"x2", x2},       {"x3", x3},         {"sign", sign}, {"row", row_sign}, {"probs", probs},
        {"cls", classes}, {"counts", counts}, {"var", var},   {"listed", listed}};
    struct Case {
      std::string name;
      std::function<Tensor()> f;
      std::string py;
    };
    std::vector<Case> cases = {
        {"HuberLoss", [&] { return nn::HuberLoss(nn::HuberLossOptions(tag(r)).delta(0.7))(x, x2); },
         "torch.nn.HuberLoss(" + red + ", delta=0.7)(x, x2)"},
        {"SoftMarginLoss",
         [&] { return nn::SoftMarginLoss(nn::SoftMarginLossOptions(tag(r)))(x, sign); },
         "torch.nn.SoftMarginLoss(" + red + ")(x, sign)"},
        {"MultiLabelSoftMarginLoss",
         [&] {
           return nn::MultiLabelSoftMarginLoss(nn::MultiLabelSoftMarginLossOptions(tag(r)))(x,
                                                                                            probs);
         },
         "torch.nn.MultiLabelSoftMarginLoss(" + red + ")(x, probs)"},
        {"MultiLabelMarginLoss",
         [&] {
           return nn::MultiLabelMarginLoss(nn::MultiLabelMarginLossOptions(tag(r)))(x, listed);
         },
         "torch.nn.MultiLabelMarginLoss(" + red + ")(x, listed)"},
        {"HingeEmbeddingLoss",
         [&] {
           return nn::HingeEmbeddingLoss(
               nn::HingeEmbeddingLossOptions().margin(0.5).reduction(tag(r)))(x, sign);
         },
         "torch.nn.HingeEmbeddingLoss(0.5, " + red + ")(x, sign)"},
        {"MultiMarginLoss",
         [&] {
           return nn::MultiMarginLoss(
               nn::MultiMarginLossOptions().p(2).margin(0.8).reduction(tag(r)))(x, classes);
         },
         "torch.nn.MultiMarginLoss(2, 0.8, " + red + ")(x, cls)"},
        {"PoissonNLLLoss",
         [&] {
           return nn::PoissonNLLLoss(nn::PoissonNLLLossOptions().full(true).reduction(tag(r)))(
               x, counts);
         },
         "torch.nn.PoissonNLLLoss(full=True, " + red + ")(x, counts)"},
        {"GaussianNLLLoss",
         [&] {
           return nn::GaussianNLLLoss(nn::GaussianNLLLossOptions().reduction(tag(r)))(x, x2, var);
         },
         "torch.nn.GaussianNLLLoss(" + red + ")(x, x2, var)"},
        {"MarginRankingLoss",
         [&] {
           return nn::MarginRankingLoss(
               nn::MarginRankingLossOptions().margin(0.3).reduction(tag(r)))(x, x2, sign);
         },
         "torch.nn.MarginRankingLoss(0.3, " + red + ")(x, x2, sign)"},
        {"CosineEmbeddingLoss",
         [&] {
           return nn::CosineEmbeddingLoss(
               nn::CosineEmbeddingLossOptions().margin(0.2).reduction(tag(r)))(x, x2, row_sign);
         },
         "torch.nn.CosineEmbeddingLoss(0.2, " + red + ")(x, x2, row)"},
        {"TripletMarginLoss",
         [&] {
           return nn::TripletMarginLoss(
               nn::TripletMarginLossOptions().p(1).swap(true).reduction(tag(r)))(x, x2, x3);
         },
         "torch.nn.TripletMarginLoss(p=1, swap=True, " + red + ")(x, x2, x3)"},
    };
    for (const Case& c : cases) {
      loss_parity(c.name + " " + red, c.f, x, "y = " + c.py, in);
    }
  }
  // PairwiseDistance's module and keepdim.
  loss_parity(
      "PairwiseDistance",
      [&] { return nn::PairwiseDistance(nn::PairwiseDistanceOptions().keepdim(true))(x, x2); }, x,
      "y = torch.nn.PairwiseDistance(keepdim=True)(x, x2)", {{"x2", x2}});

  // Bad input: PyTorch's words, and the process goes on.
  std::string e =
      error_of([&] { F::multi_margin_loss(x, classes, F::MultiMarginLossFuncOptions().p(3)); });
  EXPECT_NE(e.find("only p == 1 and p == 2 supported"), std::string::npos) << e;
  e = error_of([&] { F::margin_ranking_loss(x, x2, row_sign); });
  EXPECT_NE(e.find("All input tensors should have same dimension"), std::string::npos) << e;
  e = error_of([&] { F::gaussian_nll_loss(x, x2, var * -1); });
  EXPECT_NE(e.find("var has negative entry/entries"), std::string::npos) << e;
  e = error_of([&] { F::huber_loss(x, x2, F::HuberLossFuncOptions().delta(0)); });
  EXPECT_NE(e.find("non-positive values for delta"), std::string::npos) << e;
  EXPECT_TRUE(F::huber_loss(x, x2).defined());
}
