// The catalogue's layers (issue 34) against PyTorch 1.13 on every test device, in float32 and
// float64: CTCLoss / F::ctc_loss, EmbeddingBag / F::embedding_bag, Embedding's max_norm and
// scale_grad_by_freq, TripletMarginWithDistanceLoss, RReLU (eval exactly, training by its
// statistics), Softmax2d, LPPool1d/2d, CrossMapLRN2d and F::gumbel_softmax; each option value, the
// output and the gradient of every floating input for the same upstream gradient; then bad input
// with PyTorch's error texts and the modules' printouts.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
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

// An input of a case: its value on the CPU (float64 for floating inputs, retyped per run) and
// whether its gradient is compared.
struct Leaf {
  std::string name;
  Tensor value;
  bool grad = false;
};

using Fn = std::function<Tensor(const std::map<std::string, Tensor>&)>;

struct Case {
  std::string name;
  std::vector<Leaf> leaves;
  Fn f;
  std::string py;  // sets y from the leaves, by name
};

Tensor log_probs(std::vector<int64_t> shape, const std::string& seed) {
  manual_seed(ember::testing::seed_for(seed));
  return randn(shape, kDouble).log_softmax(-1);
}
Tensor normal(std::vector<int64_t> shape, const std::string& seed) {
  manual_seed(ember::testing::seed_for(seed));
  return randn(shape, kDouble);
}
Tensor longs(std::vector<int64_t> values) {
  return ember::tensor(TensorData(values), kLong);
}

// Runs the case on `device` in `dtype` and in PyTorch on the same values, backpropagating the
// same upstream gradient; compares the output and every gradient.
void run_case(const Case& c, Device device, ScalarType dtype) {
  const std::string ctx = c.name + " in " + std::string(to_string(dtype)) + " on " + device.str();
  std::map<std::string, Tensor> mine, theirs;
  for (const Leaf& l : c.leaves) {
    Tensor v = l.value.is_floating_point() ? l.value.to(dtype) : l.value;
    theirs[l.name] = l.grad ? v.clone().requires_grad_() : v;
    Tensor d = v.to(device);
    mine[l.name] = l.grad ? d.detach().requires_grad_() : d;
  }
  Tensor y = c.f(mine);
  ASSERT_EQ(y.device(), device) << ctx;
  manual_seed(ember::testing::seed_for(c.name + "/gy"));
  Tensor gy = randn(y.sizes(), kDouble).to(dtype);
  const bool differentiable = y.requires_grad();
  if (differentiable) y.backward(gy.to(device));
  theirs["gy"] = gy;
  std::string code = c.py + "\n";
  std::vector<std::string> outs{"y"};
  if (differentiable) code += "y.backward(gy)\n";
  for (const Leaf& l : c.leaves) {
    if (!l.grad || !differentiable) continue;
    code += "g_" + l.name + " = " + l.name + ".grad\n";
    outs.push_back("g_" + l.name);
  }
  auto r = TorchOracle::instance().run(code, theirs, outs);
  const double tol = dtype == kDouble ? 1e-9 : 2e-5;
  expect_close(y.detach().cpu(), r.at("y"), tol, tol, ctx + ": output");
  for (const Leaf& l : c.leaves) {
    if (!l.grad) continue;
    ASSERT_TRUE(differentiable) << ctx << ": the output has no gradient";
    ASSERT_TRUE(mine[l.name].grad().defined()) << ctx << ": no gradient for " << l.name;
    expect_close(mine[l.name].grad().cpu(), r.at("g_" + l.name), tol, tol,
                 ctx + ": gradient of " + l.name);
  }
}

void run_cases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    for (Device device : test_devices()) {
      for (ScalarType dtype : {kFloat, kDouble}) run_case(c, device, dtype);
    }
  }
}

#define FN(...) \
  [=](const std::map<std::string, Tensor>& x) mutable -> Tensor { return __VA_ARGS__; }

// ---- CTC ----

std::vector<Case> ctc_cases() {
  // T = 12, N = 3, C = 5: padded targets with a repeated label, lengths 4, 2, 3.
  const Leaf lp{"lp", log_probs({12, 3, 5}, "ctc/lp"), true};
  const Leaf padded{"tg", longs({1, 1, 2, 3, 2, 4, 0, 0, 3, 3, 3, 0}).reshape({3, 4})};
  const Leaf flat{"tg", longs({1, 1, 2, 3, 2, 4, 3, 3, 3})};
  const Leaf in_len{"il", longs({12, 9, 7})};
  const Leaf tg_len{"tl", longs({4, 2, 3})};
  std::vector<Case> cases;
  for (const char* reduction : {"none", "mean", "sum"}) {
    for (bool zero_infinity : {false, true}) {
      const auto options = [&] {
        auto o = F::CTCLossFuncOptions().zero_infinity(zero_infinity);
        std::string r = reduction;
        if (r == "none") return o.reduction(kNone);
        if (r == "sum") return o.reduction(kSum);
        return o.reduction(kMean);
      }();
      const std::string py_options = std::string(", reduction='") + reduction +
                                     "', zero_infinity=" + (zero_infinity ? "True" : "False");
      const std::string tag = std::string(reduction) + (zero_infinity ? "_zero_infinity" : "");
      cases.push_back({"ctc_padded_" + tag,
                       {lp, padded, in_len, tg_len},
                       FN(F::ctc_loss(x.at("lp"), x.at("tg"), x.at("il"), x.at("tl"), options)),
                       "y = F.ctc_loss(lp, tg, il, tl" + py_options + ")"});
      cases.push_back({"ctc_concatenated_" + tag,
                       {lp, flat, in_len, tg_len},
                       FN(F::ctc_loss(x.at("lp"), x.at("tg"), x.at("il"), x.at("tl"), options)),
                       "y = F.ctc_loss(lp, tg, il, tl" + py_options + ")"});
    }
  }
  // Lengths as lists, a blank other than 0, and a sample that cannot be aligned (3 labels in 2
  // steps): infinite, or zero with zero_infinity, as PyTorch (NaN gradient without).
  const Leaf lp2{"lp", log_probs({6, 3, 4}, "ctc/lp2"), true};
  const Leaf tg2{"tg", longs({0, 1, 1, 2, 0, 0, 1, 2, 0}).reshape({3, 3})};
  for (bool zero_infinity : {false, true}) {
    cases.push_back(
        {std::string("ctc_lists_blank3_impossible") + (zero_infinity ? "_zero_infinity" : ""),
         {lp2, tg2},
         FN(ember::ctc_loss(x.at("lp"), x.at("tg"), IntArrayRef{6, 5, 2}, IntArrayRef{3, 1, 3}, 3,
                            Reduction::None, zero_infinity)),
         std::string("y = F.ctc_loss(lp, tg, [6, 5, 2], [3, 1, 3], blank=3, reduction='none', "
                     "zero_infinity=") +
             (zero_infinity ? "True" : "False") + ")"});
  }
  // An empty target and an unbatched input.
  cases.push_back({"ctc_empty_target",
                   {lp, padded},
                   FN(ember::ctc_loss(x.at("lp"), x.at("tg"), IntArrayRef{12, 10, 8},
                                      IntArrayRef{4, 0, 2}, 0, Reduction::None)),
                   "y = F.ctc_loss(lp, tg, [12, 10, 8], [4, 0, 2], reduction='none')"});
  cases.push_back({"ctc_unbatched",
                   {{"lp", log_probs({9, 4}, "ctc/lp3"), true}, {"tg", longs({1, 3, 3})}},
                   FN(ember::ctc_loss(x.at("lp"), x.at("tg"), IntArrayRef{9}, IntArrayRef{3})),
                   "y = F.ctc_loss(lp, tg, [9], [3])"});
  return cases;
}

TEST(NnCatalogue, CtcLossMatchesPyTorch) {
  run_cases(ctc_cases());
}

TEST(NnCatalogue, CtcLossModule) {
  nn::CTCLoss loss(nn::CTCLossOptions().blank(4).reduction(kSum));
  Tensor lp = log_probs({7, 2, 5}, "ctc/module").requires_grad_();
  Tensor tg = longs({1, 2, 3, 0, 1, 1, 2, 2}).reshape({2, 4});
  Tensor y = loss(lp, tg, longs({7, 6}), longs({4, 3}));
  auto r = ember::testing::torch_run(
      "y = torch.nn.CTCLoss(blank=4, reduction='sum')(lp, tg, torch.tensor([7, 6]), "
      "torch.tensor([4, 3]))",
      {{"lp", lp.detach()}, {"tg", tg}});
  expect_close(y.detach(), r.at("y"), 1e-9, 1e-11, "CTCLoss(blank=4, sum)");
  std::ostringstream s;
  s << *loss;
  EXPECT_EQ(s.str(), "ember::nn::CTCLoss()");
}

TEST(NnCatalogue, CtcLossBadInput) {
  Tensor lp = log_probs({5, 2, 4}, "ctc/bad");
  Tensor tg = longs({1, 2, 3, 1, 1, 0}).reshape({2, 3});
  auto ctc = [&](IntArrayRef il, IntArrayRef tl, int64_t blank = 0, const Tensor& t = {}) {
    return error_of([&] { ember::ctc_loss(lp, t.defined() ? t : tg, il, tl, blank); });
  };
  // PyTorch's texts (its CPU kernel names itself ctc_loss_cpu).
  EXPECT_TRUE(contains(ctc({5, 6}, {3, 2}),
                       "Expected input_lengths to have value at most 5, but got value 6"));
  EXPECT_TRUE(contains(ctc({5, 5}, {4, 2}),
                       "Expected tensor to have size at least 4 at dimension 1, but got size 3 "
                       "for argument #2 'targets'"));
  EXPECT_TRUE(contains(ctc({5}, {3, 2}), "input_lengths must be of size batch_size"));
  EXPECT_TRUE(contains(ctc({5, 5}, {3}), "target_lengths must be of size batch_size"));
  EXPECT_TRUE(contains(ctc({5, 5}, {3, 2}, 4), "blank must be in label range"));
  EXPECT_TRUE(contains(ctc({5, 5}, {3, 2}, 0, longs({1, 2, 3, 1})),
                       "Expected tensor to have size 5 at dimension 0, but got size 4 for "
                       "argument #2 'targets'"));
  // Negative lengths: PyTorch 1.13 reads out of bounds; Ember names the value.
  EXPECT_TRUE(contains(ctc({5, -1}, {3, 2}),
                       "Expected input_lengths to have value at least 0, but got value -1"));
  EXPECT_TRUE(contains(ctc({5, 5}, {3, -2}),
                       "Expected target_lengths to have value at least 0, but got value -2"));
  // A target longer than its input is not an error: no alignment, an infinite loss.
  Tensor y = ember::ctc_loss(lp, tg, IntArrayRef{2, 5}, IntArrayRef{3, 2}, 0, Reduction::None);
  EXPECT_TRUE(std::isinf(y[0].item<double>()));
  EXPECT_TRUE(std::isfinite(y[1].item<double>()));
  // With no input steps only an empty target fits.
  Tensor z = ember::ctc_loss(lp, tg, IntArrayRef{0, 0}, IntArrayRef{0, 2}, 0, Reduction::None);
  EXPECT_EQ(z[0].item<double>(), 0.0);
  EXPECT_TRUE(std::isinf(z[1].item<double>()));
}

// ---- EmbeddingBag and Embedding ----

std::vector<Case> embedding_bag_cases() {
  const Leaf w{"w", normal({10, 4}, "bag/w"), true};
  const Leaf idx{"idx", longs({1, 7, 7, 3, 0, 9, 2, 5, 7})};
  const Leaf offs{"offs", longs({0, 3, 3, 7})};  // the second bag is empty
  const Leaf last{"offs", longs({0, 3, 3, 7, 9})};
  const Leaf psw{"psw", normal({9}, "bag/psw"), true};
  const Leaf idx2d{"idx", longs({1, 7, 7, 3, 0, 9, 2, 5, 4, 8, 6, 1}).reshape({4, 3})};
  std::vector<Case> cases;
  const std::vector<std::pair<std::string, nn::EmbeddingBagMode>> modes{
      {"sum", kSum}, {"mean", kMean}, {"max", kMax}};
  for (const auto& [name, mode] : modes) {
    const std::string py_mode = "mode='" + name + "'";
    const auto m = mode;
    cases.push_back(
        {"bag_" + name,
         {w, idx, offs},
         FN(F::embedding_bag(x.at("idx"), x.at("w"),
                             F::EmbeddingBagFuncOptions().offsets(x.at("offs")).mode(m))),
         "y = F.embedding_bag(idx, w, offs, " + py_mode + ")"});
    cases.push_back({"bag_" + name + "_include_last_offset_padding",
                     {w, idx, last},
                     FN(F::embedding_bag(x.at("idx"), x.at("w"),
                                         F::EmbeddingBagFuncOptions()
                                             .offsets(x.at("offs"))
                                             .mode(m)
                                             .include_last_offset(true)
                                             .padding_idx(7))),
                     "y = F.embedding_bag(idx, w, offs, " + py_mode +
                         ", include_last_offset=True, padding_idx=7)"});
    cases.push_back({"bag_" + name + "_2d",
                     {w, idx2d},
                     FN(F::embedding_bag(x.at("idx"), x.at("w"),
                                         F::EmbeddingBagFuncOptions().mode(m).padding_idx(-2))),
                     "y = F.embedding_bag(idx, w, " + py_mode + ", padding_idx=-2)"});
  }
  cases.push_back({"bag_sum_per_sample_weights",
                   {w, idx, offs, psw},
                   FN(F::embedding_bag(x.at("idx"), x.at("w"),
                                       F::EmbeddingBagFuncOptions()
                                           .offsets(x.at("offs"))
                                           .mode(kSum)
                                           .per_sample_weights(x.at("psw")))),
                   "y = F.embedding_bag(idx, w, offs, mode='sum', per_sample_weights=psw)"});
  // PyTorch 1.13's embedding_bag divides each row's gradient by the count of another index;
  // the reference is F.embedding's scale_grad_by_freq, bagged by hand (bags 0:3, 3:3, 3:7, 7:9).
  for (const char* mode : {"sum", "mean"}) {
    const bool sum = std::string(mode) == "sum";
    const nn::EmbeddingBagMode m = sum ? nn::EmbeddingBagMode(kSum) : nn::EmbeddingBagMode(kMean);
    cases.push_back(
        {std::string("bag_") + mode + "_scale_grad_by_freq",
         {w, idx, offs},
         FN(F::embedding_bag(
             x.at("idx"), x.at("w"),
             F::EmbeddingBagFuncOptions().offsets(x.at("offs")).mode(m).scale_grad_by_freq(true))),
         std::string("r = F.embedding(idx, w, scale_grad_by_freq=True)\n") +
             (sum ? "y = torch.stack([r[0:3].sum(0), r[3:3].sum(0), r[3:7].sum(0), r[7:9].sum(0)])"
                  : "y = torch.stack([r[0:3].mean(0), r[3:3].sum(0), r[3:7].mean(0), "
                    "r[7:9].mean(0)])")});
  }
  // Embedding's scale_grad_by_freq and negative padding_idx.
  cases.push_back(
      {"embedding_scale_grad_by_freq",
       {w, idx2d},
       FN(F::embedding(x.at("idx"), x.at("w"),
                       F::EmbeddingFuncOptions().scale_grad_by_freq(true).padding_idx(-3))),
       "y = F.embedding(idx, w, padding_idx=-3, scale_grad_by_freq=True)"});
  return cases;
}

TEST(NnCatalogue, EmbeddingBagMatchesPyTorch) {
  run_cases(embedding_bag_cases());
}

// max_norm renormalises the rows looked up in place before the lookup: the output, the weight
// after the call and the weight's gradient all match PyTorch's.
TEST(NnCatalogue, EmbeddingMaxNormRenormalisesInPlace) {
  for (Device device : test_devices()) {
    for (ScalarType dtype : {kFloat, kDouble}) {
      for (double norm_type : {2.0, 1.0, 3.0}) {
        for (bool bag : {false, true}) {
          const std::string ctx = std::string(bag ? "embedding_bag" : "embedding") + " norm_type " +
                                  std::to_string(norm_type) + " in " +
                                  std::string(to_string(dtype)) + " on " + device.str();
          Tensor w0 = (normal({8, 3}, "renorm/w") * 2).to(dtype);
          Tensor idx = longs({1, 4, 4, 6, 0});
          Tensor w = w0.to(device).detach().requires_grad_();
          Tensor y =
              bag ? F::embedding_bag(idx.to(device), w,
                                     F::EmbeddingBagFuncOptions()
                                         .offsets(longs({0, 2}).to(device))
                                         .max_norm(1.5)
                                         .norm_type(norm_type))
                  : F::embedding(idx.to(device), w,
                                 F::EmbeddingFuncOptions().max_norm(1.5).norm_type(norm_type));
          manual_seed(3);
          Tensor gy = randn(y.sizes(), kDouble).to(dtype);
          y.backward(gy.to(device));
          const std::string call =
              bag ? "F.embedding_bag(idx, w, torch.tensor([0, 2]), max_norm=1.5, norm_type=n)"
                  : "F.embedding(idx, w, max_norm=1.5, norm_type=n)";
          auto r = TorchOracle::instance().run("w.requires_grad_()\ny = " + call +
                                                   "\ny.backward(gy)\nw_after = w.detach()\n"
                                                   "g = w.grad",
                                               {{"w", w0.clone()},
                                                {"idx", idx},
                                                {"gy", gy},
                                                {"n", ember::scalar_tensor(norm_type, kDouble)}},
                                               {"y", "w_after", "g"});
          const double tol = dtype == kDouble ? 1e-9 : 2e-5;
          expect_close(y.detach().cpu(), r.at("y"), tol, tol, ctx + ": output");
          expect_close(w.detach().cpu(), r.at("w_after"), tol, tol, ctx + ": renormalised weight");
          expect_close(w.grad().cpu(), r.at("g"), tol, tol, ctx + ": weight gradient");
        }
      }
    }
  }
}

TEST(NnCatalogue, EmbeddingBagModule) {
  Tensor pretrained = normal({6, 3}, "bag/module");
  auto bag = nn::EmbeddingBag::from_pretrained(
      pretrained, nn::EmbeddingBagFromPretrainedOptions().mode(kMax).freeze(false));
  EXPECT_TRUE(bag->weight.requires_grad());
  Tensor y = bag(longs({0, 5, 2, 2, 4}), longs({0, 2}));
  auto r = ember::testing::torch_run(
      "y = torch.nn.EmbeddingBag.from_pretrained(p, mode='max')(torch.tensor([0, 5, 2, 2, 4]), "
      "torch.tensor([0, 2]))",
      {{"p", pretrained}});
  expect_close(y.detach(), r.at("y"), 1e-12, 1e-12, "EmbeddingBag.from_pretrained(max)");
  // A fresh bag: N(0, 1) weights with the padding row zeroed; 2-d input without offsets.
  nn::EmbeddingBag fresh(nn::EmbeddingBagOptions(5, 2).padding_idx(-1).mode(kSum));
  EXPECT_EQ(*fresh->options.padding_idx(), 4);
  EXPECT_EQ(fresh->weight[4].abs().sum().item<double>(), 0.0);
  Tensor out = fresh(longs({0, 1, 4, 2}).reshape({2, 2}));
  expect_close(out.detach(),
               ember::stack({fresh->weight[0] + fresh->weight[1], fresh->weight[2]}).detach(), 1e-6,
               1e-7, "2-d bags");
  std::ostringstream s;
  s << *fresh;
  EXPECT_EQ(s.str(),
            "ember::nn::EmbeddingBag(num_embeddings=5, embedding_dim=2, mode=kSum, "
            "padding_idx=4)");
  std::ostringstream e;
  e << *nn::Embedding(nn::EmbeddingOptions(5, 3).max_norm(1.5).scale_grad_by_freq(true));
  EXPECT_EQ(e.str(),
            "ember::nn::Embedding(num_embeddings=5, embedding_dim=3, max_norm=1.5, "
            "scale_grad_by_freq=true)");
}

TEST(NnCatalogue, EmbeddingBagBadInput) {
  Tensor w = normal({5, 3}, "bag/bad");
  Tensor idx = longs({1, 2, 4, 4});
  auto bag = [&](const F::EmbeddingBagFuncOptions& o, const Tensor& input) {
    try {
      F::embedding_bag(input, w, o);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("<no exception>");
  };
  const auto offs = F::EmbeddingBagFuncOptions().offsets(longs({0, 2}));
  EXPECT_TRUE(contains(bag(F::EmbeddingBagFuncOptions().offsets(longs({0, 2})).padding_idx(7), idx),
                       "padding_idx must be within the number of embeddings, -5 through 4, but "
                       "got 7"));
  EXPECT_TRUE(contains(bag(F::EmbeddingBagFuncOptions().offsets(longs({1, 2})), idx),
                       "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                       "start from position 0. However, got 1"));
  EXPECT_TRUE(contains(bag(F::EmbeddingBagFuncOptions().offsets(longs({0, 5})), idx),
                       "offsets[-1] can not be greater than input's length 4 but got "
                       "offsets[-1] of 5"));
  EXPECT_TRUE(contains(bag(F::EmbeddingBagFuncOptions(offs).mode(kMean).per_sample_weights(
                               ember::ones({4}, kDouble)),
                           idx),
                       "per_sample_weights is only supported for mode='sum' (got mode='mean')"));
  EXPECT_TRUE(contains(
      bag(F::EmbeddingBagFuncOptions(offs).per_sample_weights(ember::ones({3}, kDouble)).mode(kSum),
          idx),
      "embedding_bag: If per_sample_weights ([3]) is not None, then it must "
      "have the same shape as the input ([4])"));
  EXPECT_TRUE(contains(bag(F::EmbeddingBagFuncOptions(), idx),
                       "offsets has to be a 1D Tensor but got None"));
  EXPECT_TRUE(
      contains(bag(offs, idx.reshape({2, 2})), "if input is 2D, then offsets has to be None"));
  EXPECT_TRUE(contains(bag(offs, idx.reshape({1, 2, 2})),
                       "input has to be 1D or 2D Tensor, but got Tensor of dimension 3"));
  EXPECT_TRUE(
      contains(bag(F::EmbeddingBagFuncOptions(offs).mode(kMax).scale_grad_by_freq(true), idx),
               "max mode does not support scaling the gradient by the frequency"));
  EXPECT_TRUE(contains(bag(offs, idx.to(kFloat)),
                       "Expected tensor for argument #1 'indices' to have one of the following "
                       "scalar types: Long, Int; but got"));
}

// ---- TripletMarginWithDistanceLoss, Softmax2d, LPPool, RReLU (eval) ----

std::vector<Case> layer_cases() {
  const Leaf a{"a", normal({4, 6}, "tmd/a"), true};
  const Leaf p{"p", normal({4, 6}, "tmd/p"), true};
  const Leaf n{"n", normal({4, 6}, "tmd/n"), true};
  auto cosine = [](const Tensor& u, const Tensor& v) {
    return 1.0 - ember::cosine_similarity(u, v);
  };
  std::vector<Case> cases;
  for (const char* reduction : {"none", "mean", "sum"}) {
    for (bool swap : {false, true}) {
      for (bool custom : {false, true}) {
        auto o = F::TripletMarginWithDistanceLossFuncOptions().swap(swap).margin(0.7);
        const std::string r = reduction;
        o.reduction(r == "none"  ? nn::reduction_t(kNone)
                    : r == "sum" ? nn::reduction_t(kSum)
                                 : nn::reduction_t(kMean));
        if (custom) o.distance_function(cosine);
        cases.push_back(
            {"triplet_with_distance_" + r + (swap ? "_swap" : "") + (custom ? "_cosine" : ""),
             {a, p, n},
             FN(F::triplet_margin_with_distance_loss(x.at("a"), x.at("p"), x.at("n"), o)),
             "y = F.triplet_margin_with_distance_loss(a, p, n, margin=0.7, swap=" +
                 std::string(swap ? "True" : "False") + ", reduction='" + r + "'" +
                 (custom ? ", distance_function=lambda u, v: 1 - F.cosine_similarity(u, v)" : "") +
                 ")"});
      }
    }
  }
  const Leaf img{"x", normal({2, 3, 4, 5}, "layers/img"), true};
  const Leaf img3{"x", normal({3, 4, 5}, "layers/img3"), true};
  nn::Softmax2d softmax2d;
  cases.push_back({"softmax2d", {img}, FN(softmax2d(x.at("x"))), "y = torch.nn.Softmax2d()(x)"});
  cases.push_back(
      {"softmax2d_unbatched", {img3}, FN(softmax2d(x.at("x"))), "y = torch.nn.Softmax2d()(x)"});
  // LPPool: integer p over any input, fractional p over positive input (as PyTorch needs).
  const Leaf seq{"x", normal({2, 3, 10}, "layers/seq"), true};
  const Leaf positive{"x", normal({2, 3, 7, 8}, "layers/pos").abs() + 0.1, true};
  nn::LPPool1d lp1(nn::LPPool1dOptions(2, 3));
  nn::LPPool1d lp1s(nn::LPPool1dOptions(3, 4).stride(2).ceil_mode(true));
  nn::LPPool2d lp2(nn::LPPool2dOptions(1.5, {3, 2}).stride({2, 1}));
  nn::LPPool2d lp2c(nn::LPPool2dOptions(2, 3).ceil_mode(true));
  cases.push_back({"lp_pool1d", {seq}, FN(lp1(x.at("x"))), "y = torch.nn.LPPool1d(2, 3)(x)"});
  cases.push_back({"lp_pool1d_p3_stride_ceil",
                   {seq},
                   FN(lp1s(x.at("x"))),
                   "y = torch.nn.LPPool1d(3, 4, stride=2, ceil_mode=True)(x)"});
  cases.push_back({"lp_pool2d_p1_5",
                   {positive},
                   FN(lp2(x.at("x"))),
                   "y = torch.nn.LPPool2d(1.5, (3, 2), stride=(2, 1))(x)"});
  cases.push_back({"lp_pool2d_ceil",
                   {positive},
                   FN(lp2c(x.at("x"))),
                   "y = torch.nn.LPPool2d(2, 3, ceil_mode=True)(x)"});
  cases.push_back({"lp_pool2d_functional",
                   {positive},
                   FN(F::lp_pool2d(x.at("x"), F::LPPool2dFuncOptions(2, {2, 3}))),
                   "y = F.lp_pool2d(x, 2, (2, 3))"});
  // CrossMapLRN2d: PyTorch's legacy windows (forward and backward differ) for sizes below, at
  // and above the channel count, odd and even.
  for (int64_t channels : {7, 3}) {
    const Leaf maps{"x", normal({2, channels, 3, 4}, "layers/lrn" + std::to_string(channels)),
                    true};
    for (int64_t size : {2, 3, 4, 5}) {
      nn::CrossMapLRN2d lrn(nn::CrossMapLRN2dOptions(size).alpha(0.3).beta(0.6).k(2));
      cases.push_back(
          {"cross_map_lrn2d_c" + std::to_string(channels) + "_size" + std::to_string(size),
           {maps},
           FN(lrn(x.at("x"))),
           "y = torch.nn.CrossMapLRN2d(" + std::to_string(size) +
               ", alpha=0.3, beta=0.6, k=2)(x)"});
    }
  }
  nn::RReLU rrelu(nn::RReLUOptions().lower(0.1).upper(0.4));
  rrelu->eval();
  cases.push_back({"rrelu_eval_module",
                   {img},
                   FN(rrelu(x.at("x"))),
                   "m = torch.nn.RReLU(0.1, 0.4).eval()\ny = m(x)"});
  cases.push_back({"rrelu_eval_functional", {img}, FN(F::rrelu(x.at("x"))), "y = F.rrelu(x)"});
  return cases;
}

TEST(NnCatalogue, LayersMatchPyTorch) {
  run_cases(layer_cases());
}

TEST(NnCatalogue, CrossMapLRN2dBadInput) {
  nn::CrossMapLRN2d lrn(3);
  EXPECT_TRUE(contains(error_of([&] {
                         lrn(ember::ones({2, 3, 4}));
                       }),
                       "CrossMapLRN2d: Expected input to be 4D, got 3D instead."));
  nn::CrossMapLRN2d one(1);
  EXPECT_TRUE(contains(error_of([&] {
                         one(ember::ones({1, 2, 3, 3}));
                       }),
                       "size must be at least 2"));
}

TEST(NnCatalogue, Printouts) {
  auto text = [](const auto& m) {
    std::ostringstream s;
    s << *m;
    return s.str();
  };
  // libtorch 1.13's texts, with the namespace renamed.
  EXPECT_EQ(text(nn::RReLU()), "ember::nn::RReLU(lower=0.125, upper=0.333333)");
  EXPECT_EQ(text(nn::RReLU(nn::RReLUOptions().lower(0.1).upper(0.5).inplace(true))),
            "ember::nn::RReLU(lower=0.1, upper=0.5, inplace=true)");
  EXPECT_EQ(text(nn::Softmax2d()), "ember::nn::Softmax2d()");
  EXPECT_EQ(text(nn::CrossMapLRN2d(3)),
            "ember::nn::CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)");
  EXPECT_EQ(text(nn::LPPool1d(nn::LPPool1dOptions(2, 3))),
            "ember::nn::LPPool1d(norm_type=2, kernel_size=3, stride=3, ceil_mode=false)");
  EXPECT_EQ(text(nn::LPPool2d(nn::LPPool2dOptions(1.5, {3, 2}).stride(1).ceil_mode(true))),
            "ember::nn::LPPool2d(norm_type=1.5, kernel_size=[3, 2], stride=[1, 1], "
            "ceil_mode=true)");
  EXPECT_EQ(text(nn::TripletMarginWithDistanceLoss(
                nn::TripletMarginWithDistanceLossOptions().margin(0.5).swap(true))),
            "ember::nn::TripletMarginWithDistanceLoss(margin=0.5, swap=true)");
  EXPECT_EQ(text(nn::EmbeddingBag(nn::EmbeddingBagOptions(5, 3)
                                      .mode(kSum)
                                      .padding_idx(1)
                                      .max_norm(2.)
                                      .norm_type(1)
                                      .scale_grad_by_freq(true)
                                      .include_last_offset(true)
                                      .sparse(true))),
            "ember::nn::EmbeddingBag(num_embeddings=5, embedding_dim=3, max_norm=2, norm_type=1, "
            "scale_grad_by_freq=true, sparse=true, mode=kSum, include_last_offset=true, "
            "padding_idx=1)");
}

// ---- the random layers: statistics ----

// In training each negative element gets its own slope from U(lower, upper); positive elements
// pass unchanged, and the gradient is the slope used.
TEST(NnCatalogue, RReLUTrainingDrawsSlopes) {
  const double lower = 0.1, upper = 0.4;
  for (Device device : test_devices()) {
    for (ScalarType dtype : {kFloat, kDouble}) {
      const std::string ctx = std::string(to_string(dtype)) + " on " + device.str();
      manual_seed(11);
      Tensor x = (randn({200000}, dtype) * 3).to(device).requires_grad_();
      nn::RReLU m(nn::RReLUOptions().lower(lower).upper(upper));
      ASSERT_TRUE(m->is_training());
      Tensor y = m(x);
      y.sum().backward();
      const std::vector<double> xs = x.detach().to_vector<double>();
      const std::vector<double> ys = y.detach().to_vector<double>();
      const std::vector<double> gs = x.grad().to_vector<double>();
      std::vector<double> slopes;
      for (size_t i = 0; i < xs.size(); ++i) {
        if (xs[i] > 0) {
          ASSERT_EQ(ys[i], xs[i]) << ctx << ": positive element " << i << " changed";
          ASSERT_EQ(gs[i], 1.0) << ctx << ": gradient of positive element " << i;
          continue;
        }
        const double slope = ys[i] / xs[i];
        slopes.push_back(slope);
        ASSERT_NEAR(gs[i], slope, 1e-6) << ctx << ": the gradient is the slope used";
      }
      Tensor s = ember::tensor(TensorData(slopes), kDouble);
      EXPECT_GE(s.min().item<double>(), lower - 1e-6) << ctx;
      EXPECT_LE(s.max().item<double>(), upper + 1e-6) << ctx;
      EXPECT_NEAR(s.mean().item<double>(), (lower + upper) / 2, 0.002) << ctx;
      EXPECT_NEAR(s.var().item<double>(), (upper - lower) * (upper - lower) / 12, 0.0005) << ctx;
      // Two draws differ; eval mode uses the mean slope, exactly as PyTorch (LayersMatchPyTorch).
      Tensor y2 = m(x.detach());
      EXPECT_FALSE(y2.equal(y.detach())) << ctx;
      // In place: the input holds the result.
      Tensor z = x.detach().clone();
      F::rrelu(z, F::RReLUFuncOptions().training(false).inplace(true));
      expect_close(z.cpu(), ember::leaky_relu(x.detach(), 0.125 / 2 + 1.0 / 6).cpu(), 1e-6, 1e-7,
                   ctx + ": in place, eval");
    }
  }
  EXPECT_TRUE(contains(error_of<ValueError>([] { ember::rrelu(ember::ones({2}), 0.5, 0.1); }),
                       "Lower bound should be less than or equal to the upper bound"));
}

// Gumbel-max: the argmax of logits + Gumbel noise is a draw from softmax(logits), so the hard
// samples' frequencies approach the softmax; soft samples are distributions; the hard sample has
// the soft one's gradient.
TEST(NnCatalogue, GumbelSoftmaxSamplesTheSoftmax) {
  for (Device device : test_devices()) {
    const std::string ctx = device.str();
    Tensor logits = ember::tensor({1.0, 0.0, -1.0, 2.0}, kDouble).to(device);
    manual_seed(5);
    Tensor draws = logits.expand({40000, 4}).contiguous();
    Tensor hard = F::gumbel_softmax(draws, F::GumbelSoftmaxFuncOptions().hard(true));
    expect_close(hard.sum(1).cpu(), ember::ones({40000}, kDouble), 1e-12, 1e-12, ctx + ": one-hot");
    expect_close(hard.mean({0}).cpu(), ember::softmax(logits, 0).cpu(), 0, 0.01,
                 ctx + ": frequencies");
    Tensor soft = F::gumbel_softmax(draws, F::GumbelSoftmaxFuncOptions().tau(0.5));
    expect_close(soft.sum(1).cpu(), ember::ones({40000}, kDouble), 1e-12, 1e-12,
                 ctx + ": soft rows sum to 1");
    Tensor leaf = logits.detach().requires_grad_();
    Tensor h = F::gumbel_softmax(leaf.unsqueeze(0), F::GumbelSoftmaxFuncOptions().hard(true));
    (h * ember::arange(4, kDouble).to(device)).sum().backward();
    ASSERT_TRUE(leaf.grad().defined()) << ctx;
    EXPECT_NEAR(leaf.grad().sum().item<double>(), 0.0, 1e-12) << ctx << ": softmax's gradient";
  }
}

}  // namespace
