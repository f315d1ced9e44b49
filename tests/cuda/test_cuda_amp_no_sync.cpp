// A mixed-precision training iteration on CUDA waits for the device once: when step() reads
// whether a gradient overflowed, as PyTorch's GradScaler does. Autocast's casts, scale(),
// backward, unscale_() (the fused kernel) and update() (the on-device scale update) only queue
// work. Counted with the simulator's host-wait counter (-DEMBER_CUDA=SIM).
#include <gtest/gtest.h>

#include <cstdlib>

#include "ember/ember.h"
#include "support/cuda_skip.h"
#if defined(EMBER_TEST_WITH_SIM)
#include "cuda_sim.h"
#endif

using namespace ember;
namespace F = ember::nn::functional;

namespace {

TEST(CudaAmpNoSync, OneHostWaitPerIterationInStep) {
  EMBER_SKIP_WITHOUT_CUDA();
#if !defined(EMBER_TEST_WITH_SIM)
  GTEST_SKIP() << "counting host waits needs the simulator (-DEMBER_CUDA=SIM)";
#else
  // Without the cache every free is a cudaFree, which waits (as on a GPU).
  EMBER_SKIP_WITHOUT_CUDA_CACHING();
  const Device d("cuda:0");
  manual_seed(2);
  auto model = nn::Sequential(nn::Linear(16, 32), nn::ReLU(), nn::Linear(32, 4));
  model->to(d);
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  amp::GradScaler scaler;
  Tensor x = randn({8, 16}).to(d), y = randint(0, 4, {8}).to(d);
  // What one read of a device scalar costs in host waits (the one wait step() needs).
  cuda::synchronize();
  uint64_t before = cuda_sim::host_waits();
  (void)zeros({1}, d).item<float>();
  const uint64_t one_read = cuda_sim::host_waits() - before;
  ASSERT_GE(one_read, 1u);

  for (int it = 0; it < 3; ++it) {  // the first iteration creates the scale; later ones reuse it
    opt.zero_grad();
    cuda::synchronize();
    before = cuda_sim::host_waits();
    Tensor loss;
    {
      amp::autocast region(kCUDA);
      loss = F::cross_entropy(model->forward(x), y);
    }
    scaler.scale(loss).backward();
    scaler.unscale_(opt);
    EXPECT_EQ(cuda_sim::host_waits(), before) << "iteration " << it << ": forward to unscale_";
    scaler.step(opt);
    EXPECT_EQ(cuda_sim::host_waits(), before + one_read) << "iteration " << it << ": step";
    scaler.update();
    EXPECT_EQ(cuda_sim::host_waits(), before + one_read) << "iteration " << it << ": update";
  }
  EXPECT_EQ(scaler.get_growth_tracker(), 3);  // three clean steps were counted on the device
#endif
}

}  // namespace
