// The fused float32 CPU steps (Adam/AdamW, NAdam, RAdam, RMSprop, SGD) must give exactly the
// composite's results: a non-contiguous parameter takes the composite path, a contiguous one the
// fused path.
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
  for (int step = 0; step < 10; ++step) {  // RAdam rectifies from step 6
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

TEST(FusedNAdamRAdam, MatchCompositeExactly) {
  run_both<optim::NAdam>(optim::NAdamOptions(0.01));
  run_both<optim::NAdam>(optim::NAdamOptions(0.01).weight_decay(0.1).betas({0.8, 0.95}).eps(1e-6));
  run_both<optim::RAdam>(optim::RAdamOptions(0.01));
  run_both<optim::RAdam>(optim::RAdamOptions(0.01).weight_decay(0.1).betas({0.8, 0.9}));
}

TEST(FusedRMSprop, MatchesCompositeExactly) {
  run_both<optim::RMSprop>(optim::RMSpropOptions(0.01));
  run_both<optim::RMSprop>(optim::RMSpropOptions(0.01).centered(true).weight_decay(0.1));
  run_both<optim::RMSprop>(optim::RMSpropOptions(0.01).momentum(0.9).maximize(true));
  run_both<optim::RMSprop>(
      optim::RMSpropOptions(0.01).momentum(0.5).centered(true).alpha(0.9).eps(1e-6));
}

TEST(FusedSGD, MatchesCompositeExactly) {
  run_both<optim::SGD>(optim::SGDOptions(0.1));
  run_both<optim::SGD>(optim::SGDOptions(0.1).weight_decay(0.1).maximize(true));
  run_both<optim::SGD>(optim::SGDOptions(0.05).momentum(0.9).dampening(0.2));
  run_both<optim::SGD>(optim::SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(0.01));
}
