// The libtorch functional and layers of issue 16 (F::leaky_relu, elu, softplus, hardtanh,
// normalize, pad, interpolate, binary_cross_entropy, smooth_l1_loss, kl_div, cosine_similarity,
// one_hot, and their modules) against PyTorch on every test device: the output and the gradient
// of every input for the same upstream gradient; then printing and bad input.
#include <gtest/gtest.h>

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

enum class Kind { Normal, Probability, Positive };

struct Leaf {
  std::vector<int64_t> shape;
  Kind kind = Kind::Normal;
  bool requires_grad = true;
};

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct Case {
  std::string name;
  std::vector<Leaf> leaves;  // named a, b, c in Python
  Fn f;
  std::string py;  // sets y from a, b, c
};

Tensor draw(const Leaf& leaf, uint64_t seed) {
  manual_seed(seed);
  switch (leaf.kind) {
    case Kind::Probability:
      return rand(leaf.shape, kDouble) * 0.9 + 0.05;
    case Kind::Positive:
      return rand(leaf.shape, kDouble) + 0.5;
    default:
      return randn(leaf.shape, kDouble);
  }
}

// Runs the case on `device` and in PyTorch (float64), backpropagating the same upstream gradient.
void run_case(const Case& c, Device device) {
  const std::string ctx = c.name + " on " + device.str();
  const char* names[] = {"a", "b", "c"};
  std::vector<Tensor> cpu, leaves;
  std::map<std::string, Tensor> in;
  for (size_t i = 0; i < c.leaves.size(); ++i) {
    Tensor t = draw(c.leaves[i], ember::testing::seed_for(c.name) + i);
    cpu.push_back(t);
    in[names[i]] = c.leaves[i].requires_grad ? t.clone().requires_grad_() : t;
    Tensor l = t.to(device);
    leaves.push_back(c.leaves[i].requires_grad ? l.detach().requires_grad_() : l);
  }
  Tensor y = c.f(leaves);
  ASSERT_EQ(y.device(), device) << ctx;
  manual_seed(ember::testing::seed_for(c.name + "/gy"));
  Tensor gy = randn(y.sizes(), kDouble);
  y.backward(gy.to(device));
  in["gy"] = gy;
  std::string code = c.py + "\ny.backward(gy)\n";
  std::vector<std::string> outs{"y"};
  for (size_t i = 0; i < c.leaves.size(); ++i) {
    if (!c.leaves[i].requires_grad) continue;
    code += std::string("g") + names[i] + " = " + names[i] + ".grad\n";
    outs.push_back(std::string("g") + names[i]);
  }
  auto r = TorchOracle::instance().run(code, in, outs);
  expect_close(y.cpu(), r.at("y"), 1e-9, 1e-11, ctx + ": output");
  for (size_t i = 0; i < c.leaves.size(); ++i) {
    if (!c.leaves[i].requires_grad) continue;
    ASSERT_TRUE(leaves[i].grad().defined()) << ctx << ": no gradient for " << names[i];
    expect_close(leaves[i].grad().cpu(), r.at(std::string("g") + names[i]), 1e-9, 1e-11,
                 ctx + ": gradient of " + names[i]);
  }
}

#define FN(...) [](const std::vector<Tensor>& x) -> Tensor { return __VA_ARGS__; }

std::vector<Case> activation_cases() {
  return {
      {"leaky_relu_default", {{{3, 5}}}, FN(F::leaky_relu(x[0])), "y = F.leaky_relu(a)"},
      {"leaky_relu_slope",
       {{{2, 3, 4}}},
       FN(F::leaky_relu(x[0], F::LeakyReLUFuncOptions().negative_slope(0.2))),
       "y = F.leaky_relu(a, 0.2)"},
      {"leaky_relu_inplace",
       {{{3, 4}}},
       FN(F::leaky_relu(x[0] * 1.0, F::LeakyReLUFuncOptions().negative_slope(0.3).inplace(true))),
       "y = F.leaky_relu(a * 1.0, 0.3, inplace=True)"},
      {"elu", {{{3, 5}}}, FN(F::elu(x[0])), "y = F.elu(a)"},
      // Large inputs: the exponential branch must not overflow into the gradient.
      {"elu_alpha_large",
       {{{4, 5}}},
       FN(F::elu(x[0] * 400, F::ELUFuncOptions().alpha(1.5))),
       "y = F.elu(a * 400, alpha=1.5)"},
      {"softplus", {{{3, 5}}}, FN(F::softplus(x[0])), "y = F.softplus(a)"},
      {"softplus_beta_threshold",
       {{{4, 6}}},
       FN(F::softplus(x[0] * 10, F::SoftplusFuncOptions().beta(2).threshold(5))),
       "y = F.softplus(a * 10, beta=2, threshold=5)"},
      {"softplus_huge", {{{3, 3}}}, FN(F::softplus(x[0] * 1000)), "y = F.softplus(a * 1000)"},
      {"hardtanh", {{{3, 5}}}, FN(F::hardtanh(x[0] * 2)), "y = F.hardtanh(a * 2)"},
      {"hardtanh_bounds",
       {{{4, 5}}},
       FN(F::hardtanh(x[0], F::HardtanhFuncOptions().min_val(-0.5).max_val(0.8))),
       "y = F.hardtanh(a, -0.5, 0.8)"},
  };
}

std::vector<Case> shape_cases() {
  using IOpt = F::InterpolateFuncOptions;
  return {
      {"normalize_default", {{{3, 4, 5}}}, FN(F::normalize(x[0])), "y = F.normalize(a)"},
      {"normalize_p1_last",
       {{{3, 4}}},
       FN(F::normalize(x[0], F::NormalizeFuncOptions().p(1).dim(-1))),
       "y = F.normalize(a, p=1, dim=-1)"},
      {"normalize_p3_dim0",
       {{{3, 4}}},
       FN(F::normalize(x[0], F::NormalizeFuncOptions().p(3).dim(0).eps(1e-6))),
       "y = F.normalize(a, p=3, dim=0, eps=1e-6)"},
      {"normalize_zero_row",
       {{{3, 4}}},
       FN(F::normalize(x[0] *
                       ember::tensor({1.0, 0.0, 1.0}, kDouble).to(x[0].device()).reshape({3, 1}))),
       "y = F.normalize(a * torch.tensor([1.0, 0.0, 1.0], dtype=torch.float64).reshape(3, 1))"},
      {"pad_constant_1d",
       {{{2, 3, 4}}},
       FN(F::pad(x[0], F::PadFuncOptions({1, 2}).value(0.5))),
       "y = F.pad(a, (1, 2), value=0.5)"},
      {"pad_constant_crop",
       {{{2, 3, 4, 5}}},
       FN(F::pad(x[0], F::PadFuncOptions({1, -1, 2, 0, 0, 1}).mode(kConstant))),
       "y = F.pad(a, (1, -1, 2, 0, 0, 1))"},
      {"pad_reflect_1d",
       {{{2, 3, 5}}},
       FN(F::pad(x[0], F::PadFuncOptions({2, 4}).mode(kReflect))),
       "y = F.pad(a, (2, 4), mode='reflect')"},
      {"pad_reflect_2d",
       {{{2, 3, 4, 5}}},
       FN(F::pad(x[0], F::PadFuncOptions({1, 2, 3, 1}).mode(kReflect))),
       "y = F.pad(a, (1, 2, 3, 1), mode='reflect')"},
      {"pad_reflect_2d_unbatched",
       {{{3, 4, 5}}},
       FN(F::pad(x[0], F::PadFuncOptions({1, 1, 2, 2}).mode(kReflect))),
       "y = F.pad(a, (1, 1, 2, 2), mode='reflect')"},
      {"pad_replicate_2d",
       {{{1, 2, 3, 4}}},
       FN(F::pad(x[0], F::PadFuncOptions({2, 3, 1, 0}).mode(kReplicate))),
       "y = F.pad(a, (2, 3, 1, 0), mode='replicate')"},
      {"pad_replicate_3d",
       {{{1, 2, 3, 3, 4}}},
       FN(F::pad(x[0], F::PadFuncOptions({1, 1, 2, 0, 0, 1}).mode(kReplicate))),
       "y = F.pad(a, (1, 1, 2, 0, 0, 1), mode='replicate')"},
      {"pad_circular_2d",
       {{{1, 2, 3, 4}}},
       FN(F::pad(x[0], F::PadFuncOptions({1, 2, 2, 1}).mode(kCircular))),
       "y = F.pad(a, (1, 2, 2, 1), mode='circular')"},
      {"interp_nearest_size",
       {{{2, 3, 4, 6}}},
       FN(F::interpolate(x[0], IOpt().size(std::vector<int64_t>{7, 5}))),
       "y = F.interpolate(a, size=(7, 5))"},
      {"interp_nearest_scale",
       {{{2, 3, 4, 6}}},
       FN(F::interpolate(x[0], IOpt().scale_factor(std::vector<double>{2.0, 1.5}))),
       "y = F.interpolate(a, scale_factor=(2.0, 1.5))"},
      {"interp_nearest_1d_third",
       {{{2, 3, 3}}},
       FN(F::interpolate(x[0], IOpt().size(std::vector<int64_t>{9}))),
       "y = F.interpolate(a, size=9)"},
      {"interp_nearest_exact",
       {{{2, 2, 5, 4}}},
       FN(F::interpolate(x[0], IOpt().size(std::vector<int64_t>{3, 7}).mode(kNearestExact))),
       "y = F.interpolate(a, size=(3, 7), mode='nearest-exact')"},
      {"interp_nearest_3d",
       {{{1, 2, 2, 3, 4}}},
       FN(F::interpolate(x[0], IOpt().size(std::vector<int64_t>{3, 5, 2}))),
       "y = F.interpolate(a, size=(3, 5, 2))"},
      {"interp_bilinear",
       {{{2, 3, 4, 6}}},
       FN(F::interpolate(
           x[0], IOpt().size(std::vector<int64_t>{7, 9}).mode(kBilinear).align_corners(false))),
       "y = F.interpolate(a, size=(7, 9), mode='bilinear', align_corners=False)"},
      {"interp_bilinear_default_align",
       {{{1, 2, 5, 5}}},
       FN(F::interpolate(x[0], IOpt().size(std::vector<int64_t>{3, 8}).mode(kBilinear))),
       "y = F.interpolate(a, size=(3, 8), mode='bilinear')"},
      {"interp_bilinear_align_corners",
       {{{2, 3, 4, 6}}},
       FN(F::interpolate(
           x[0],
           IOpt().scale_factor(std::vector<double>{1.5, 2.0}).mode(kBilinear).align_corners(true))),
       "y = F.interpolate(a, scale_factor=(1.5, 2.0), mode='bilinear', align_corners=True)"},
      {"interp_bilinear_fractional_scale",
       {{{1, 2, 5, 7}}},
       FN(F::interpolate(x[0], IOpt()
                                   .scale_factor(std::vector<double>{1.7, 0.6})
                                   .mode(kBilinear)
                                   .align_corners(false))),
       "y = F.interpolate(a, scale_factor=(1.7, 0.6), mode='bilinear', align_corners=False)"},
      {"interp_bilinear_recompute",
       {{{1, 2, 5, 7}}},
       FN(F::interpolate(x[0], IOpt()
                                   .scale_factor(std::vector<double>{1.7, 0.6})
                                   .mode(kBilinear)
                                   .align_corners(false)
                                   .recompute_scale_factor(true))),
       "y = F.interpolate(a, scale_factor=(1.7, 0.6), mode='bilinear', align_corners=False, "
       "recompute_scale_factor=True)"},
      {"interp_linear_1d",
       {{{2, 3, 5}}},
       FN(F::interpolate(x[0],
                         IOpt().size(std::vector<int64_t>{8}).mode(kLinear).align_corners(false))),
       "y = F.interpolate(a, size=8, mode='linear', align_corners=False)"},
      {"interp_trilinear",
       {{{1, 2, 2, 3, 4}}},
       FN(F::interpolate(
           x[0], IOpt().size(std::vector<int64_t>{3, 4, 6}).mode(kTrilinear).align_corners(true))),
       "y = F.interpolate(a, size=(3, 4, 6), mode='trilinear', align_corners=True)"},
      {"cosine_similarity",
       {{{4, 5}}, {{4, 5}}},
       FN(F::cosine_similarity(x[0], x[1])),
       "y = F.cosine_similarity(a, b)"},
      {"cosine_similarity_broadcast",
       {{{3, 1, 5}}, {{4, 5}}},
       FN(F::cosine_similarity(x[0], x[1], F::CosineSimilarityFuncOptions().dim(-1).eps(1e-6))),
       "y = F.cosine_similarity(a, b, dim=-1, eps=1e-6)"},
  };
}

std::vector<Case> loss_cases() {
  const Kind P = Kind::Probability;
  return {
      {"bce",
       {{{3, 4}, P}, {{3, 4}, P, false}},
       FN(F::binary_cross_entropy(x[0], x[1])),
       "y = F.binary_cross_entropy(a, b)"},
      {"bce_weight_sum",
       {{{3, 4}, P}, {{3, 4}, P, false}, {{4}, Kind::Positive, false}},
       FN(F::binary_cross_entropy(x[0], x[1],
                                  F::BinaryCrossEntropyFuncOptions().weight(x[2]).reduction(kSum))),
       "y = F.binary_cross_entropy(a, b, weight=c, reduction='sum')"},
      {"bce_none",
       {{{5}, P}, {{5}, P, false}},
       FN(F::binary_cross_entropy(x[0], x[1], F::BinaryCrossEntropyFuncOptions(kNone))),
       "y = F.binary_cross_entropy(a, b, reduction='none')"},
      {"smooth_l1",
       {{{3, 4}}, {{3, 4}}},
       FN(F::smooth_l1_loss(x[0], x[1])),
       "y = F.smooth_l1_loss(a, b)"},
      {"smooth_l1_beta_sum",
       {{{3, 4}}, {{3, 4}}},
       FN(F::smooth_l1_loss(x[0], x[1], F::SmoothL1LossFuncOptions(kSum), 0.5)),
       "y = F.smooth_l1_loss(a, b, reduction='sum', beta=0.5)"},
      {"smooth_l1_beta0_none",
       {{{3, 4}}, {{3, 4}}},
       FN(F::smooth_l1_loss(x[0], x[1], F::SmoothL1LossFuncOptions(kNone), 0.0)),
       "y = F.smooth_l1_loss(a, b, reduction='none', beta=0.0)"},
      {"kl_div_batchmean",
       {{{3, 5}}, {{3, 5}}},
       FN(F::kl_div(log_softmax(x[0], 1), softmax(x[1], 1),
                    F::KLDivFuncOptions().reduction(kBatchMean))),
       "y = F.kl_div(torch.log_softmax(a, 1), torch.softmax(b, 1), reduction='batchmean')"},
      {"kl_div_mean_zero_targets",
       {{{3, 5}}, {{3, 5}}},
       FN(F::kl_div(log_softmax(x[0], 1), relu(x[1]))),
       "y = F.kl_div(torch.log_softmax(a, 1), torch.relu(b))"},
      {"kl_div_log_target_sum",
       {{{2, 4}}, {{2, 4}}},
       FN(F::kl_div(x[0], log_softmax(x[1], 1), F::KLDivFuncOptions(kSum).log_target(true))),
       "y = F.kl_div(a, torch.log_softmax(b, 1), reduction='sum', log_target=True)"},
      {"kl_div_none",
       {{{2, 4}}, {{2, 4}, Kind::Positive}},
       FN(F::kl_div(x[0], x[1], F::KLDivFuncOptions(kNone))),
       "y = F.kl_div(a, b, reduction='none')"},
  };
}

}  // namespace

TEST(NnFunctionalCompat, ActivationsMatchTorchOnEveryDevice) {
  for (const Device& device : test_devices()) {
    for (const Case& c : activation_cases()) run_case(c, device);
  }
}

TEST(NnFunctionalCompat, NormalizePadInterpolateCosineMatchTorchOnEveryDevice) {
  for (const Device& device : test_devices()) {
    for (const Case& c : shape_cases()) run_case(c, device);
  }
}

TEST(NnFunctionalCompat, LossesMatchTorchOnEveryDevice) {
  for (const Device& device : test_devices()) {
    for (const Case& c : loss_cases()) run_case(c, device);
  }
}

TEST(NnFunctionalCompat, ModulesMatchFunctionalOnEveryDevice) {
  for (const Device& device : test_devices()) {
    manual_seed(3);
    Tensor x = randn({4, 6}).to(device);
    Tensor p = (rand({4, 6}) * 0.9 + 0.05).to(device);
    Tensor t = rand({4, 6}).to(device);
    expect_close(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.1))(x).cpu(),
                 F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.1)).cpu());
    expect_close(nn::ELU(nn::ELUOptions().alpha(2))(x).cpu(),
                 F::elu(x, F::ELUFuncOptions().alpha(2)).cpu());
    expect_close(nn::Softplus(nn::SoftplusOptions().beta(3))(x).cpu(),
                 F::softplus(x, F::SoftplusFuncOptions().beta(3)).cpu());
    expect_close(nn::Hardtanh(nn::HardtanhOptions().min_val(-0.2).max_val(0.3))(x).cpu(),
                 x.clamp(-0.2, 0.3).cpu());
    expect_close(nn::BCELoss()(p, t).cpu(), F::binary_cross_entropy(p, t).cpu());
    // The module reads options.beta(); the functional its own argument.
    expect_close(nn::SmoothL1Loss(nn::SmoothL1LossOptions().beta(0.25))(x, t).cpu(),
                 F::smooth_l1_loss(x, t, {}, 0.25).cpu());
    expect_close(nn::KLDivLoss(nn::KLDivLossOptions(kBatchMean))(log_softmax(x, 1), p).cpu(),
                 F::kl_div(log_softmax(x, 1), p, F::KLDivFuncOptions(kBatchMean)).cpu());
    expect_close(nn::CosineSimilarity(nn::CosineSimilarityOptions().dim(0))(x, t).cpu(),
                 F::cosine_similarity(x, t, F::CosineSimilarityFuncOptions().dim(0)).cpu());
    // In place: the input itself holds the result.
    Tensor y = x.clone();
    Tensor out = nn::LeakyReLU(nn::LeakyReLUOptions().inplace(true))(y);
    EXPECT_TRUE(out.is_same(y));
    expect_close(y.cpu(), F::leaky_relu(x).cpu());
  }
}

TEST(NnFunctionalCompat, ModulesPrintAsLibtorch) {
  auto str = [](const auto& m) {
    std::ostringstream os;
    os << *m;
    return os.str();
  };
  EXPECT_EQ(str(nn::LeakyReLU()), "ember::nn::LeakyReLU(negative_slope=0.01)");
  EXPECT_EQ(str(nn::LeakyReLU(nn::LeakyReLUOptions().inplace(true))),
            "ember::nn::LeakyReLU(negative_slope=0.01, inplace=true)");
  EXPECT_EQ(str(nn::ELU()), "ember::nn::ELU(alpha=1)");
  EXPECT_EQ(str(nn::Softplus()), "ember::nn::Softplus(beta=1, threshold=20)");
  EXPECT_EQ(str(nn::Hardtanh()), "ember::nn::Hardtanh(min_val=-1, max_val=1)");
  EXPECT_EQ(str(nn::CosineSimilarity()), "ember::nn::CosineSimilarity(dim=1, eps=1e-08)");
  EXPECT_EQ(str(nn::BCELoss()), "ember::nn::BCELoss()");
  EXPECT_EQ(str(nn::KLDivLoss()), "ember::nn::KLDivLoss()");
}

TEST(NnFunctionalCompat, OneHotMatchesTorch) {
  Tensor idx = ember::tensor({0, 3, 1, 3, 2});
  auto r = ember::testing::torch_run("y = F.one_hot(a)", {{"a", idx}});
  expect_close(F::one_hot(idx), r.at("y"));
  r = ember::testing::torch_run("y = F.one_hot(a, 6)", {{"a", idx.reshape({5, 1})}});
  expect_close(F::one_hot(idx.reshape({5, 1}), 6), r.at("y"));
}

TEST(NnFunctionalCompat, BadInputsNameTheProblem) {
  Tensor x4 = randn({2, 3, 4, 5});
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         F::pad(x4, F::PadFuncOptions({1, 2, 3}));
                       }),
                       "padding length must be divisible by 2, got 3 values [1, 2, 3]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         F::pad(randn({3}), F::PadFuncOptions({1, 1, 1, 1}));
                       }),
                       "padding length too large: 4 values for an input of shape [3]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         F::pad(x4, F::PadFuncOptions({5, 0, 0, 0}).mode(kReflect));
                       }),
                       "reflect padding (5, 0) must be less than the size 5 of dim 3"));
  EXPECT_TRUE(contains(error_of<NotImplementedError>([&] {
                         F::pad(x4, F::PadFuncOptions({1, 1}).mode(kReplicate));
                       }),
                       "got 2 padding values for an input of shape [2, 3, 4, 5]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         F::pad(x4, F::PadFuncOptions({1, 1, 1, 1}).mode(kReflect).value(2));
                       }),
                       "padding mode \"reflect\" doesn't take in value argument"));
  using IOpt = F::InterpolateFuncOptions;
  EXPECT_TRUE(contains(error_of<ValueError>([&] { F::interpolate(x4, IOpt()); }),
                       "either size or scale_factor should be defined"));
  EXPECT_TRUE(contains(
      error_of<ValueError>([&] { F::interpolate(x4, IOpt().size(std::vector<int64_t>{3})); }),
      "the input of shape [2, 3, 4, 5] has 2, size has 1"));
  EXPECT_TRUE(
      contains(error_of<ValueError>([&] {
                 F::interpolate(x4, IOpt().size(std::vector<int64_t>{3, 3}).align_corners(true));
               }),
               "align_corners option can only be set with the interpolating modes"));
  EXPECT_TRUE(contains(
      error_of<ValueError>([&] {
        F::interpolate(randn({2, 3, 4}), IOpt().size(std::vector<int64_t>{3}).mode(kBilinear));
      }),
      "mode 'bilinear' expects a 4D input, got shape [2, 3, 4]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         F::interpolate(randn({4, 5}), IOpt().size(std::vector<int64_t>{3}));
                       }),
                       "Only 3D, 4D and 5D input Tensors supported (got 2D, shape [4, 5])"));
  EXPECT_TRUE(contains(error_of<NotImplementedError>([&] {
                         F::interpolate(x4, IOpt().size(std::vector<int64_t>{3, 3}).mode(kBicubic));
                       }),
                       "mode 'bicubic' is not supported"));
  EXPECT_TRUE(
      contains(error_of<ValueError>([&] {
                 F::binary_cross_entropy(rand({3, 4}), rand({3, 5}));
               }),
               "Using a target size ([3, 5]) that is different to the input size ([3, 4])"));
  EXPECT_TRUE(
      contains(error_of<ValueError>([&] {
                 F::binary_cross_entropy(ember::tensor({0.5f, 1.5f}), ember::tensor({0.0f, 1.0f}));
               }),
               "all elements of input should be between 0 and 1"));
  EXPECT_TRUE(
      contains(error_of<ValueError>([&] { F::smooth_l1_loss(randn({3}), randn({3}), {}, -1.0); }),
               "smooth_l1_loss does not support negative values for beta, got -1"));
  EXPECT_TRUE(contains(
      error_of<IndexError>([&] {
        F::cosine_similarity(randn({3, 4}), randn({3, 4}), F::CosineSimilarityFuncOptions().dim(2));
      }),
      "Dimension out of range (expected to be in range of [-2, 1], but got 2)"));
  EXPECT_TRUE(
      contains(error_of<ValueError>([&] { nn::Hardtanh(nn::HardtanhOptions().min_val(2)); }),
               "max_val must be greater than min_val, got min_val=2, max_val=1"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         F::normalize(randn({3, 4}), F::NormalizeFuncOptions().p(-1));
                       }),
                       "normalize: p must be positive, got -1"));
}
