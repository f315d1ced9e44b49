// nn::init's structured initialisers (eye_, dirac_ with groups, orthogonal_, sparse_) and
// trunc_normal_ against PyTorch: deterministic ones value for value on every device; orthogonal_
// against torch.linalg.qr on the same normal draw; sparse_ by its zero pattern; trunc_normal_ by
// its bounds and moments; bad shapes.
#include <gtest/gtest.h>

#include <cmath>
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
using ember::testing::torch_run;

TEST(NnInitCompat, EyeAndDiracMatchTorchOnEveryDevice) {
  for (const Device& device : test_devices()) {
    for (std::vector<int64_t> shape : {std::vector<int64_t>{3, 5}, {4, 2}, {3, 3}}) {
      Tensor w = randn(shape).to(device).requires_grad_();
      Tensor out = nn::init::eye_(w);
      EXPECT_TRUE(out.is_same(w));
      auto r = torch_run("y = torch.nn.init.eye_(torch.empty(a.shape))", {{"a", w.detach().cpu()}});
      expect_close(w.detach().cpu(), r.at("y"), 0, 0, "eye_ on " + device.str());
    }
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{4, 3, 3}, {2, 3, 3, 4}, {3, 2, 3, 2, 3}, {2, 2, 1, 1}}) {
      Tensor w = randn(shape, kDouble).to(device);
      nn::init::dirac_(w);
      auto r = torch_run("y = torch.nn.init.dirac_(torch.empty(a.shape, dtype=a.dtype))",
                         {{"a", w.cpu()}});
      expect_close(w.cpu(), r.at("y"), 0, 0, "dirac_ on " + device.str());
    }
  }
}

TEST(NnInitCompat, OrthogonalIsTorchsQOfTheSameDraw) {
  for (const Device& device : test_devices()) {
    for (std::vector<int64_t> shape : {std::vector<int64_t>{3, 5}, {6, 2}, {4, 2, 3}, {5, 5}}) {
      const int64_t rows = shape[0];
      int64_t numel = 1;
      for (int64_t s : shape) numel *= s;
      // orthogonal_ draws randn({rows, numel / rows}) first, as libtorch does.
      manual_seed(11);
      Tensor draw = randn({rows, numel / rows});
      manual_seed(11);
      Tensor w = empty(shape, TensorOptions().device(device));
      nn::init::orthogonal_(w, 2.0);
      auto r = torch_run(
          "wide = a.shape[0] < a.shape[1]\n"
          "m = a.t() if wide else a\n"
          "q, r = torch.linalg.qr(m)\n"
          "q = q * torch.sign(torch.diag(r))\n"
          "y = (q.t() if wide else q) * 2.0",
          {{"a", draw}});
      expect_close(w.cpu().reshape({rows, numel / rows}), r.at("y"), 1e-4, 1e-5,
                   "orthogonal_ on " + device.str());
      // Rows (or columns) orthonormal up to the gain.
      Tensor flat = w.cpu().to(kDouble).reshape({rows, numel / rows});
      Tensor gram = rows <= numel / rows ? matmul(flat, flat.t()) : matmul(flat.t(), flat);
      expect_close(gram, eye(gram.size(0), kDouble) * 4.0, 1e-5, 1e-5, "orthogonality");
    }
  }
}

TEST(NnInitCompat, SparseZeroesTheRequestedFractionOfEveryColumn) {
  for (const Device& device : test_devices()) {
    Tensor w = empty({10, 7}, TensorOptions().device(device));
    nn::init::sparse_(w, 0.25, 0.5);
    Tensor zeros_per_column = (w.cpu() == 0).to(kLong).sum({0});
    for (int64_t c = 0; c < 7; ++c) {
      EXPECT_EQ(zeros_per_column[c].item<int64_t>(), 3) << "column " << c;  // ceil(0.25 * 10)
    }
    Tensor big = empty({400, 50}, TensorOptions().device(device));
    nn::init::sparse_(big, 0.1, 0.5);
    Tensor kept = big.cpu().flatten();
    const double var = ((kept * kept).sum() / (kept != 0).sum()).item<double>();
    EXPECT_NEAR(std::sqrt(var), 0.5, 0.02);
  }
}

TEST(NnInitCompat, BadShapesAreNamed) {
  EXPECT_TRUE(contains(error_of<ValueError>([] {
                         nn::init::eye_(empty({2, 2, 2}));
                       }),
                       "eye_: Only tensors with 2 dimensions are supported, got shape [2, 2, 2]"));
  EXPECT_TRUE(contains(error_of<ValueError>([] {
                         nn::init::dirac_(empty({2, 2}));
                       }),
                       "dirac_: Only tensors with 3, 4, or 5 dimensions are supported"));
  EXPECT_TRUE(contains(error_of<ValueError>([] { nn::init::orthogonal_(empty({4})); }),
                       "orthogonal_: Only tensors with 2 or more dimensions are supported"));
  EXPECT_TRUE(contains(error_of<ValueError>([] { nn::init::sparse_(empty({4}), 0.1); }),
                       "sparse_: Only tensors with 2 dimensions are supported"));
  EXPECT_TRUE(contains(error_of<ValueError>([] {
                         nn::init::sparse_(empty({4, 4}), 1.5);
                       }),
                       "sparsity must be in [0, 1], got 1.5"));
}

TEST(NnInitCompat, DiracWithGroupsMatchesTorch) {
  for (const Device& device : test_devices()) {
    for (auto [shape, groups] : {std::pair<std::vector<int64_t>, int64_t>{{6, 2, 3}, 3},
                                 {{4, 3, 3, 3}, 2},
                                 {{6, 1, 3, 2, 3}, 2},
                                 {{4, 4, 1, 1}, 4}}) {
      Tensor w = randn(shape, kDouble).to(device);
      nn::init::dirac_(w, groups);
      auto r = torch_run("y = torch.nn.init.dirac_(torch.empty(a.shape, dtype=a.dtype), " +
                             std::to_string(groups) + ")",
                         {{"a", w.cpu()}});
      expect_close(w.cpu(), r.at("y"), 0, 0, "dirac_ groups on " + device.str());
    }
  }
  EXPECT_TRUE(contains(error_of<ValueError>([] {
                         nn::init::dirac_(empty({5, 2, 3}), 2);
                       }),
                       "dirac_: dim 0 must be divisible by groups, got shape [5, 2, 3] and "
                       "groups=2"));
}

// trunc_normal_: values inside [a, b], and the moments of the truncated normal PyTorch's
// trunc_normal_ reaches on a draw of the same size (both near the closed form).
TEST(NnInitCompat, TruncNormalHasTheTruncatedMoments) {
  struct Case {
    double mean, std, a, b;
  };
  for (const Device& device : test_devices()) {
    for (const Case c : {Case{0, 1, -2, 2}, Case{0.5, 2, -1, 3}, Case{0, 0.02, -0.04, 0.04}}) {
      SCOPED_TRACE(device.str() + " mean " + std::to_string(c.mean));
      Tensor w = empty({400, 500}, TensorOptions().device(device)).requires_grad_();
      Tensor out = nn::init::trunc_normal_(w, c.mean, c.std, c.a, c.b);
      EXPECT_TRUE(out.is_same(w));
      const Tensor v = w.detach().cpu().to(kDouble);
      EXPECT_GE(v.min().item<double>(), c.a);
      EXPECT_LE(v.max().item<double>(), c.b);
      const std::string args = std::to_string(c.mean) + ", " + std::to_string(c.std) + ", " +
                               std::to_string(c.a) + ", " + std::to_string(c.b);
      auto r = torch_run(
          "torch.manual_seed(0)\n"
          "t = torch.nn.init.trunc_normal_(torch.empty(400, 500), " +
              args +
              ").double()\n"
              "m = t.mean().reshape(1)\n"
              "s = t.std().reshape(1)",
          {}, {"m", "s"});
      const double spread = c.std;  // the moments are within 1% of std for 200,000 draws
      EXPECT_NEAR(v.mean().item<double>(), r.at("m").item<double>(), 0.01 * spread);
      EXPECT_NEAR(v.std().item<double>(), r.at("s").item<double>(), 0.01 * spread);
    }
  }
  EXPECT_TRUE(
      contains(error_of<ValueError>([] { nn::init::trunc_normal_(empty({2}), 0, 1, 2, 1); }),
               "trunc_normal_: expected std > 0 and a < b, got std=1, a=2, b=1"));
}
