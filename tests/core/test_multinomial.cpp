// multinomial: the frequencies of the draws follow the weights on every device (with and without
// replacement), zero weights are never drawn, draws without replacement are distinct, one seed
// gives one draw, and bad input gets PyTorch's messages.
#include <gtest/gtest.h>

#include <set>

#include <cmath>

#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"

namespace ember::testing {
namespace {

// The fraction of draws equal to each category.
std::vector<double> frequencies(const Tensor& draws, int64_t categories) {
  const Tensor flat = draws.cpu().reshape({-1}).contiguous();
  std::vector<double> f(categories, 0.0);
  const int64_t* d = flat.data_ptr<int64_t>();
  for (int64_t i = 0; i < flat.numel(); ++i) f.at(d[i]) += 1.0 / flat.numel();
  return f;
}

TEST(Multinomial, WithReplacementFollowsTheWeights) {
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str());
    manual_seed(1);
    // Weights, not probabilities: they sum to 2. Category 1 and the last have none.
    const Tensor w = tensor({0.2, 0.0, 1.2, 0.6, 0.0}).to(dev);
    const Tensor draws = multinomial(w, 40000, true);
    EXPECT_EQ(draws.sizes(), (std::vector<int64_t>{40000}));
    EXPECT_EQ(draws.scalar_type(), kLong);
    EXPECT_EQ(draws.device(), dev);
    const std::vector<double> f = frequencies(draws, 5);
    EXPECT_NEAR(f[0], 0.1, 0.01);
    EXPECT_EQ(f[1], 0.0);
    EXPECT_NEAR(f[2], 0.6, 0.01);
    EXPECT_NEAR(f[3], 0.3, 0.01);
    EXPECT_EQ(f[4], 0.0);
    // Rows of a 2-D input draw from their own weights.
    const Tensor rows = tensor({1.0, 0.0, 0.0, 0.0, 0.0, 3.0}, kFloat).reshape({2, 3}).to(dev);
    const Tensor two = rows.multinomial(1000, true).cpu();
    EXPECT_EQ(two.sizes(), (std::vector<int64_t>{2, 1000}));
    EXPECT_TRUE(equal(two[0], zeros({1000}, kLong)));
    EXPECT_TRUE(equal(two[1], full({1000}, 2, kLong)));
  }
}

TEST(Multinomial, WithoutReplacementDrawsDistinctCategoriesInWeightOrder) {
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str());
    manual_seed(2);
    // All categories: a permutation of each row.
    const Tensor perm = multinomial(ones({50, 7}, TensorOptions().device(dev)), 7).cpu();
    for (int64_t r = 0; r < 50; ++r) {
      std::set<int64_t> seen;
      for (int64_t j = 0; j < 7; ++j) seen.insert(perm[r][j].item<int64_t>());
      EXPECT_EQ(seen.size(), 7u);
    }
    // The first draw follows the weights; the second is one of the others.
    const Tensor w = tensor({1.0, 0.0, 3.0, 6.0}, kFloat).to(dev).expand({20000, 4}).contiguous();
    const Tensor draws = multinomial(w, 2).cpu();
    const std::vector<double> first = frequencies(draws.select(1, 0), 4);
    EXPECT_NEAR(first[0], 0.1, 0.01);
    EXPECT_EQ(first[1], 0.0);
    EXPECT_NEAR(first[2], 0.3, 0.01);
    EXPECT_NEAR(first[3], 0.6, 0.01);
    EXPECT_TRUE(draws.select(1, 0).ne(draws.select(1, 1)).all().item<bool>());
    EXPECT_EQ(frequencies(draws.select(1, 1), 4)[1], 0.0);
  }
}

TEST(Multinomial, OneSeedOneDraw) {
  const Tensor w = rand({3, 10}) + 0.1;
  manual_seed(5);
  const Tensor a = multinomial(w, 6), b = multinomial(w, 6, true);
  manual_seed(5);
  EXPECT_TRUE(equal(multinomial(w, 6), a));
  EXPECT_TRUE(equal(multinomial(w, 6, true), b));
}

TEST(Multinomial, BadInputGetsPyTorchsMessages) {
  const Tensor w = tensor({0.5, 0.5});
  EXPECT_EQ(error_of<ValueError>([] {
              multinomial(ones({2, 2, 2}), 1);
            }),
            "prob_dist must be 1 or 2 dim");
  EXPECT_EQ(error_of<ValueError>([&] { multinomial(w, 3); }),
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  EXPECT_EQ(error_of<ValueError>([&] { multinomial(w, 0); }),
            "cannot sample n_sample <= 0 samples");
  EXPECT_EQ(error_of<ValueError>([] {
              multinomial(tensor({0.5, -0.1}), 1);
            }),
            "probability tensor contains either `inf`, `nan` or element < 0");
  EXPECT_EQ(error_of<ValueError>([] {
              multinomial(tensor({0.5, NAN}), 1);
            }),
            "probability tensor contains either `inf`, `nan` or element < 0");
  EXPECT_EQ(error_of<ValueError>([] {
              multinomial(zeros({2, 3}), 1, true);
            }),
            "invalid multinomial distribution (sum of probabilities <= 0)");
  EXPECT_EQ(error_of<ValueError>([] {
              multinomial(tensor({0.5, 0.0, 0.0}), 2);
            }),
            "invalid multinomial distribution (with replacement=False, not enough non-negative "
            "category to sample)");
  EXPECT_EQ(error_of<TypeError>([] { multinomial(ones({3}, kLong), 1); }),
            "multinomial only supports floating-point dtypes for input, got: Long");
  EXPECT_EQ(multinomial(w, 2).sizes(), (std::vector<int64_t>{2}));  // still works
}

}  // namespace
}  // namespace ember::testing
