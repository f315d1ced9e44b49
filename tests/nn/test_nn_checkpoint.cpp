// ember::utils::checkpoint and checkpoint_sequential: the loss and every gradient (inputs and the
// parameters used inside) equal the plain run's on every device, dropout included (the random
// state of the forward is replayed, and the caller's stream is left where it was); the activations
// inside are not kept (the allocator's count after the forward, on CUDA devices); bad input.
// get_rng_state / set_rng_state round trips.
#include <gtest/gtest.h>

#include "ember/cuda.h"
#include "ember/nn.h"
#include "ember/ops.h"
#include "ember/random_state.h"
#include "ember/utils/checkpoint.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"

namespace ember::testing {
namespace {

using autograd::variable_list;

// Linear, GELU and dropout twice: random draws inside, so only a replayed state matches.
nn::Sequential make_block(Device dev) {
  manual_seed(5);
  nn::Sequential block(nn::Linear(16, 64), nn::GELU(), nn::Dropout(0.3), nn::Linear(64, 16),
                       nn::Dropout(0.2));
  block->to(dev, kDouble);
  return block;
}

struct Outcome {
  Tensor loss, input_grad, next_draw;
  std::vector<Tensor> param_grads;
};

Outcome run(nn::Sequential& block, const Tensor& x_cpu, Device dev, bool checkpointed) {
  block->zero_grad();
  Tensor x = x_cpu.to(dev).detach().requires_grad_(true);
  manual_seed(77);
  Tensor y;
  if (checkpointed) {
    y = utils::checkpoint(
        [&](const variable_list& in) { return variable_list{block->forward(in[0])}; }, {x})[0];
  } else {
    y = block->forward(x);
  }
  Outcome r;
  r.loss = (y * y).sum();
  r.loss.backward();
  r.input_grad = x.grad().cpu();
  for (const Tensor& p : block->parameters()) r.param_grads.push_back(p.grad().cpu());
  r.next_draw = rand({4}).cpu();  // where the backward left the caller's random stream
  return r;
}

TEST(Checkpoint, GradientsEqualThePlainRunWithDropout) {
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str());
    nn::Sequential block = make_block(dev);
    const Tensor x = randn({8, 16}, kDouble);
    const Outcome plain = run(block, x, dev, false);
    const Outcome ckpt = run(block, x, dev, true);
    EXPECT_TRUE(allclose(ckpt.loss.cpu(), plain.loss.cpu(), 1e-12, 1e-12));
    EXPECT_TRUE(allclose(ckpt.input_grad, plain.input_grad, 1e-12, 1e-12));
    ASSERT_EQ(ckpt.param_grads.size(), plain.param_grads.size());
    for (size_t i = 0; i < plain.param_grads.size(); ++i) {
      EXPECT_TRUE(allclose(ckpt.param_grads[i], plain.param_grads[i], 1e-12, 1e-12)) << i;
    }
    EXPECT_TRUE(equal(ckpt.next_draw, plain.next_draw));
  }
}

TEST(Checkpoint, WithoutPreservedStateDropoutDrawsAgain) {
  nn::Sequential block = make_block(kCPU);
  const Tensor x_cpu = randn({8, 16}, kDouble);
  const Outcome plain = run(block, x_cpu, kCPU, false);
  block->zero_grad();
  const Tensor x = x_cpu.detach().requires_grad_(true);
  manual_seed(77);
  const Tensor y = utils::checkpoint(
      [&](const variable_list& in) { return variable_list{block->forward(in[0])}; }, {x},
      /*preserve_rng_state=*/false)[0];
  EXPECT_TRUE(allclose(y.pow(2).sum(), plain.loss, 1e-12, 1e-12)) << "same forward masks";
  (y * y).sum().backward();
  // The recomputation drew new masks, so the gradient is not the forward's.
  EXPECT_FALSE(allclose(x.grad(), plain.input_grad));
}

TEST(Checkpoint, SequentialSegmentsEqualThePlainRun) {
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str());
    manual_seed(3);
    std::vector<nn::Linear> layers;
    std::vector<std::function<Tensor(const Tensor&)>> functions;
    for (int i = 0; i < 7; ++i) {
      layers.emplace_back(nn::Linear(6, 6));
      layers.back()->to(dev, kDouble);
      nn::Linear layer = layers.back();
      functions.push_back([layer](const Tensor& t) mutable { return tanh(layer->forward(t)); });
    }
    const Tensor x = randn({3, 6}, kDouble).to(dev);
    for (int64_t segments : {1, 2, 3, 7}) {
      SCOPED_TRACE(segments);
      std::vector<Tensor> plain, ckpt;
      for (bool use : {false, true}) {
        for (auto& l : layers) l->zero_grad();
        Tensor xi = x.detach().requires_grad_(true);
        Tensor y = xi;
        if (use) {
          y = utils::checkpoint_sequential(functions, segments, xi);
        } else {
          for (auto& f : functions) y = f(y);
        }
        y.sum().backward();
        auto& out = use ? ckpt : plain;
        out.push_back(xi.grad().cpu());
        for (auto& l : layers) out.push_back(l->weight.grad().cpu());
      }
      for (size_t i = 0; i < plain.size(); ++i) {
        EXPECT_TRUE(allclose(ckpt[i], plain[i], 1e-12, 1e-12)) << i;
      }
    }
  }
  EXPECT_THROW(utils::checkpoint_sequential({}, 0, randn({2})), ValueError);
}

TEST(Checkpoint, NoGradOrNoInputRequiringGradRecordsNothing) {
  nn::Linear layer(3, 3);
  const Tensor x = randn({2, 3});
  const auto f = [&](const variable_list& in) { return variable_list{layer->forward(in[0])}; };
  EXPECT_FALSE(utils::checkpoint(f, {x})[0].requires_grad());
  NoGradGuard no_grad;
  EXPECT_FALSE(utils::checkpoint(f, {x.requires_grad_(true)})[0].requires_grad());
}

TEST(Checkpoint, ActivationsInsideAreNotKept) {
  EMBER_SKIP_WITHOUT_CUDA();
  const Device dev = cuda_devices().front();
  manual_seed(1);
  nn::Sequential block;
  for (int i = 0; i < 6; ++i) {
    block->push_back(nn::Linear(256, 256));
    block->push_back(nn::Tanh());
  }
  block->to(dev);
  const Tensor x = randn({512, 256}).to(dev).requires_grad_(true);
  const size_t activation = 512 * 256 * sizeof(float);
  size_t held[2];
  for (int use = 0; use < 2; ++use) {
    cuda::synchronize();
    const size_t before = cuda::memory_allocated(dev.index());
    Tensor y =
        use ? utils::checkpoint(
                  [&](const variable_list& in) { return variable_list{block->forward(in[0])}; },
                  {x})[0]
            : block->forward(x);
    cuda::synchronize();
    held[use] = cuda::memory_allocated(dev.index()) - before;
    y.sum().backward();
  }
  // The plain run keeps each Tanh's output (saved by it and by the next Linear).
  EXPECT_GE(held[0], 5 * activation) << "the plain run keeps the layers' activations";
  EXPECT_LE(held[1], 2 * activation) << "the checkpointed run keeps only its output";
}

TEST(RngState, RoundTripsAndRejectsOtherTensors) {
  manual_seed(123);
  rand({3});
  const Tensor state = get_rng_state();
  EXPECT_EQ(state.scalar_type(), kByte);
  EXPECT_EQ(state.numel(), 16);
  const Tensor a = rand({5});
  set_rng_state(state);
  EXPECT_TRUE(equal(rand({5}), a));
  EXPECT_TRUE(contains(error_of<ValueError>([] { set_rng_state(zeros({16})); }),
                       "set_rng_state: expected a 1-D uint8 tensor of 16 bytes"));
  EXPECT_THROW(set_rng_state(zeros({8}, kByte)), ValueError);
}

}  // namespace
}  // namespace ember::testing
