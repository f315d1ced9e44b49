// The fused float32 CPU Adam/AdamW step must give exactly the composite's results: a
// non-contiguous parameter takes the composite path, a contiguous one the fused path.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

namespace {

template <typename Opt, typename Options>
void run_both(const Options& options) {
  manual_seed(11);
  Tensor init = randn({5, 7});
  Tensor fused_p = init.clone().requires_grad_();
  Tensor composite_p = init.t().contiguous().t().detach().requires_grad_();  // same values, strided
  ASSERT_FALSE(composite_p.is_contiguous());
  Opt fused({fused_p}, options), composite({composite_p}, options);
  for (int step = 0; step < 5; ++step) {
    Tensor g = randn({5, 7});
    fused_p.mutable_grad() = g.clone();
    composite_p.mutable_grad() = g.clone();
    fused.step();
    composite.step();
    EXPECT_TRUE(fused_p.detach().equal(composite_p.detach().contiguous())) << "step " << step;
  }
}

}  // namespace

TEST(FusedAdam, MatchesCompositeExactly) {
  run_both<optim::Adam>(optim::AdamOptions(0.01));
  run_both<optim::Adam>(optim::AdamOptions(0.01).weight_decay(0.1).betas({0.8, 0.95}).eps(1e-6));
  run_both<optim::AdamW>(optim::AdamWOptions(0.01).weight_decay(0.05));
}
