// DistributedDataParallel on Gloo with 2 and 3 processes: gradients equal the single-process
// gradients of the concatenated batch, SGD and Adam training stays identical on every rank and
// equal to single-process training, rank 0's state is broadcast, no_sync accumulates, unused
// parameters are named or handled, buckets are all-reduced while backward runs, buffers follow
// rank 0, and mistakes are named.
#include <gtest/gtest.h>

#include "ember/cuda.h"
#include "ember/distributed.h"
#include "ember/nn.h"
#include "ember/nn/parallel/distributed_data_parallel.h"
#include "ember/ops.h"
#include "ember/optim.h"
#include "support/cuda_skip.h"
#include "support/multi_process.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace dist = ember::distributed;
namespace nn = ember::nn;
using ember::Tensor;
using ember::nn::parallel::DistributedDataParallel;
using ember::nn::parallel::DistributedDataParallelOptions;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::run_ranks_and_check;
using namespace std::chrono_literals;

namespace {

void run(int world_size, const std::function<void()>& body) {
  run_ranks_and_check({.world_size = world_size, .timeout = 180s}, body);
}

void init() {
  dist::init_process_group("gloo", dist::InitProcessGroupOptions().timeout(60s));
}

nn::Sequential make_mlp(uint64_t seed) {
  ember::manual_seed(seed);
  return nn::Sequential(nn::Linear(10, 32), nn::Tanh(), nn::Linear(32, 32), nn::Tanh(),
                        nn::Linear(32, 3));
}

// The global batch of step `step`; rank r's shard is rows [r * per_rank, (r + 1) * per_rank).
std::pair<Tensor, Tensor> global_batch(int64_t rows, int step) {
  ember::manual_seed(1000 + static_cast<uint64_t>(step));
  return {ember::randn({rows, 10}), ember::randn({rows, 3})};
}

Tensor shard(const Tensor& t, int rank, int world) {
  int64_t per = t.size(0) / world;
  return t.narrow(0, rank * per, per);
}

// Every rank holds bit-identical values of `t`.
void expect_same_on_every_rank(const Tensor& t, const std::string& what) {
  Tensor flat = t.detach().reshape({-1}).contiguous();
  std::vector<Tensor> all;
  dist::all_gather(all, flat);
  for (size_t r = 1; r < all.size(); ++r) {
    EXPECT_TRUE(all[r].equal(all[0])) << what << " differs between rank 0 and rank " << r;
  }
}

class DDP : public ::testing::TestWithParam<int> {};

TEST_P(DDP, GradientsEqualSingleProcessGradientsOfTheConcatenatedBatch) {
  const int world = GetParam();
  run(world, [world] {
    init();
    const int me = dist::get_rank();
    auto model = make_mlp(7);
    auto reference = make_mlp(7);  // same initial values, never wrapped
    auto ddp = DistributedDataParallel(model);
    auto [x, y] = global_batch(8 * world, 0);
    nn::functional::mse_loss(ddp(shard(x, me, world)), shard(y, me, world)).backward();
    nn::functional::mse_loss(reference->forward(x), y).backward();
    auto got = model->named_parameters();
    auto want = reference->named_parameters();
    for (size_t i = 0; i < got.size(); ++i) {
      expect_close(got[i].value().grad(), want[i].value().grad(), 1e-6, 1e-6,
                   "grad of " + got[i].key());
    }
    dist::destroy_process_group();
  });
}

TEST_P(DDP, SgdAndAdamTrainingMatchesSingleProcessOnEveryRank) {
  const int world = GetParam();
  run(world, [world] {
    init();
    const int me = dist::get_rank();
    for (bool adam : {false, true}) {
      auto model = make_mlp(11);
      auto reference = make_mlp(11);
      auto ddp = DistributedDataParallel(model);
      std::unique_ptr<ember::optim::Optimizer> opt, ref_opt;
      if (adam) {
        opt = std::make_unique<ember::optim::Adam>(ddp->parameters(),
                                                   ember::optim::AdamOptions(1e-2));
        ref_opt = std::make_unique<ember::optim::Adam>(reference->parameters(),
                                                       ember::optim::AdamOptions(1e-2));
      } else {
        opt = std::make_unique<ember::optim::SGD>(ddp->parameters(),
                                                  ember::optim::SGDOptions(0.1).momentum(0.9));
        ref_opt = std::make_unique<ember::optim::SGD>(reference->parameters(),
                                                      ember::optim::SGDOptions(0.1).momentum(0.9));
      }
      for (int step = 0; step < 12; ++step) {
        auto [x, y] = global_batch(4 * world, step);
        opt->zero_grad();
        nn::functional::mse_loss(ddp(shard(x, me, world)), shard(y, me, world)).backward();
        opt->step();
        ref_opt->zero_grad();
        nn::functional::mse_loss(reference->forward(x), y).backward();
        ref_opt->step();
      }
      auto got = model->named_parameters();
      auto want = reference->named_parameters();
      std::string name = adam ? "Adam " : "SGD ";
      for (size_t i = 0; i < got.size(); ++i) {
        expect_same_on_every_rank(got[i].value(), name + got[i].key());
        expect_close(got[i].value().detach(), want[i].value().detach(), 1e-4, 1e-5,
                     name + got[i].key() + " vs single process");
      }
    }
    dist::destroy_process_group();
  });
}

TEST_P(DDP, ConstructionBroadcastsRankZerosParametersAndBuffers) {
  const int world = GetParam();
  run(world, [] {
    init();
    const int me = dist::get_rank();
    ember::manual_seed(100 + static_cast<uint64_t>(me));  // every rank starts different
    auto model = nn::Sequential(nn::Linear(6, 5), nn::BatchNorm1d(5), nn::Linear(5, 2));
    auto buffers = model->buffers();
    buffers[0].fill_(static_cast<double>(me));  // running_mean
    auto ddp = DistributedDataParallel(model);
    for (const auto& p : model->named_parameters()) expect_same_on_every_rank(p.value(), p.key());
    for (const auto& b : model->named_buffers()) expect_same_on_every_rank(b.value(), b.key());
    EXPECT_EQ(buffers[0].sum().item<float>(), 0.0f);  // rank 0's value everywhere

    // Training forwards update each rank's running stats from its own batch; the next forward
    // starts from rank 0's (in eval mode the module leaves them as broadcast).
    for (int step = 0; step < 3; ++step) {
      ember::manual_seed(200 + static_cast<uint64_t>(me * 10 + step));
      ddp(ember::randn({8, 6})).sum().backward();
    }
    model->eval();
    {
      ember::NoGradGuard no_grad;
      ddp(ember::randn({8, 6}));
    }
    for (const auto& b : model->named_buffers()) expect_same_on_every_rank(b.value(), b.key());
    dist::destroy_process_group();
  });
}

TEST_P(DDP, NoSyncAccumulatesLocallyAndTheNextSyncAveragesTheSum) {
  const int world = GetParam();
  run(world, [world] {
    init();
    const int me = dist::get_rank();
    auto model = make_mlp(3);
    auto reference = make_mlp(3);
    auto ddp = DistributedDataParallel(model);
    std::vector<std::pair<Tensor, Tensor>> micro;
    for (int k = 0; k < 3; ++k) micro.push_back(global_batch(4 * world, 50 + k));
    {
      auto guard = ddp->no_sync();
      for (int k = 0; k < 2; ++k) {
        nn::functional::mse_loss(ddp(shard(micro[k].first, me, world)),
                                 shard(micro[k].second, me, world))
            .backward();
      }
    }
    // Locally accumulated, not yet averaged: ranks differ now.
    nn::functional::mse_loss(ddp(shard(micro[2].first, me, world)),
                             shard(micro[2].second, me, world))
        .backward();
    for (int k = 0; k < 3; ++k) {
      nn::functional::mse_loss(reference->forward(micro[k].first), micro[k].second).backward();
    }
    auto got = model->named_parameters();
    auto want = reference->named_parameters();
    for (size_t i = 0; i < got.size(); ++i) {
      expect_close(got[i].value().grad(), want[i].value().grad(), 1e-5, 1e-6,
                   "accumulated grad of " + got[i].key());
    }
    dist::destroy_process_group();
  });
}

// Two linear layers, the second one used only when asked.
struct Branchy : nn::Module {
  Branchy() {
    ember::manual_seed(5);
    a = register_module("a", nn::Linear(4, 4));
    b = register_module("b", nn::Linear(4, 4));
  }
  Tensor forward(const Tensor& x, bool use_b) {
    Tensor h = a->forward(x);
    return use_b ? b->forward(h) : h;
  }
  nn::Linear a{nullptr}, b{nullptr};
};

TEST_P(DDP, UnusedParameterIsNamedWithoutFindUnusedParameters) {
  const int world = GetParam();
  run(world, [] {
    init();
    auto ddp = DistributedDataParallel(std::make_shared<Branchy>());
    ddp(ember::randn({3, 4}), true).sum().backward();  // fine: everything used
    std::string msg = error_of([&] { ddp(ember::randn({3, 4}), false).sum().backward(); });
    EXPECT_TRUE(contains(msg,
                         "2 parameters received no gradient in this backward pass: "
                         "'b.weight', 'b.bias'"))
        << msg;
    EXPECT_TRUE(contains(msg, "find_unused_parameters(true)")) << msg;
    // The next iteration works again.
    ddp(ember::randn({3, 4}), true).sum().backward();
    dist::destroy_process_group();
  });
}

TEST_P(DDP, FindUnusedParametersAveragesWithTheRanksThatUsedThem) {
  const int world = GetParam();
  run(world, [world] {
    init();
    const int me = dist::get_rank();
    auto net = std::make_shared<Branchy>();
    auto ddp =
        DistributedDataParallel(net, DistributedDataParallelOptions().find_unused_parameters(true));
    Tensor x = ember::full({2, 4}, 1.0);
    // Only rank 0 goes through b.
    ddp(x, me == 0).sum().backward();
    auto reference = std::make_shared<Branchy>();
    reference->forward(x, true).sum().backward();
    // b's gradient: rank 0's contribution averaged with zeros from the others.
    expect_close(net->b->weight.grad(), reference->b->weight.grad() / world, 1e-6, 1e-6,
                 "b.weight");
    // a's gradient is the average of the two kinds of ranks.
    Tensor a_without_b;
    {
      auto alone = std::make_shared<Branchy>();
      alone->forward(x, false).sum().backward();
      a_without_b = alone->a->weight.grad();
    }
    expect_close(net->a->weight.grad(),
                 (reference->a->weight.grad() + a_without_b * (world - 1)) / world, 1e-5, 1e-6,
                 "a.weight");
    // Nobody uses b: its gradient is left alone (undefined after zero_grad).
    net->zero_grad();
    ddp(x, false).sum().backward();
    EXPECT_FALSE(net->b->weight.grad().defined());
    EXPECT_TRUE(net->a->weight.grad().defined());
    dist::destroy_process_group();
  });
}

TEST_P(DDP, BucketsAreAllReducedWhileBackwardRuns) {
  const int world = GetParam();
  run(world, [world] {
    init();
    const int me = dist::get_rank();
    ember::manual_seed(9);
    nn::Sequential model;
    for (int i = 0; i < 6; ++i) {
      model->push_back(nn::Linear(256, 256));
      model->push_back(nn::Tanh());
    }
    // 256 KiB per weight: a bucket closes once it holds 0.2 MiB, so each layer gets its own.
    auto ddp = DistributedDataParallel(model, DistributedDataParallelOptions().bucket_cap_mb(0.2));
    ASSERT_EQ(ddp->bucket_indices().size(), 6u);
    ember::manual_seed(static_cast<uint64_t>(me));
    Tensor x = ember::randn({512, 256});
    for (int iter = 0; iter < 3; ++iter) ddp(x).sum().backward();
    auto stats = ddp->last_backward_stats();
    ASSERT_EQ(stats.num_buckets, ddp->bucket_indices().size());
    char line[256];
    std::snprintf(line, sizeof(line),
                  "%zu buckets: first all-reduce issued at %.2f ms and done at %.2f ms, last "
                  "issued at %.2f ms; backward ended at %.2f ms, gradients averaged at %.2f ms",
                  stats.num_buckets, stats.bucket_launch_ms[0], stats.bucket_done_ms[0],
                  stats.bucket_launch_ms.back(), stats.backward_end_ms, stats.finalize_end_ms);
    ember::testing::report(line);
    // The first bucket went out while backward still had layers to go.
    EXPECT_LT(stats.bucket_launch_ms[0], stats.backward_end_ms);
    for (size_t b = 1; b < stats.num_buckets; ++b) {
      EXPECT_LE(stats.bucket_launch_ms[b - 1], stats.bucket_launch_ms[b]);
    }
    (void)world;
    dist::destroy_process_group();
  });
}

TEST_P(DDP, BucketsFollowReverseRegistrationOrderWithASmallFirstBucket) {
  const int world = GetParam();
  run(world, [] {
    init();
    ember::manual_seed(1);
    // 4 x (512x512 float = 1 MiB weight + 2 KiB bias)
    auto model = nn::Sequential(nn::Linear(512, 512), nn::Linear(512, 512), nn::Linear(512, 512),
                                nn::Linear(512, 512));
    auto ddp = DistributedDataParallel(model, DistributedDataParallelOptions().bucket_cap_mb(1.5));
    auto buckets = ddp->bucket_indices();
    // Parameters 0..7 (w0 b0 w1 b1 ...), taken in reverse: a bucket closes once it reaches its
    // limit, 1 MiB for the first, 1.5 MiB for the others.
    ASSERT_EQ(buckets.size(), 3u);
    EXPECT_EQ(buckets[0], (std::vector<size_t>{7, 6}));
    EXPECT_EQ(buckets[1], (std::vector<size_t>{5, 4, 3, 2}));
    EXPECT_EQ(buckets[2], (std::vector<size_t>{1, 0}));
    dist::destroy_process_group();
  });
}

TEST_P(DDP, MistakesAreNamed) {
  const int world = GetParam();
  run(world, [] {
    init();
    const int me = dist::get_rank();
    // A model that differs on one rank.
    ember::manual_seed(1);
    auto odd = nn::Sequential(nn::Linear(4, me == 1 ? 5 : 4));
    std::string msg = error_of<ember::ValueError>([&] { DistributedDataParallel ddp(odd); });
    // Every rank refuses, the ones with rank 0's model included.
    EXPECT_TRUE(contains(msg,
                         "rank 1's module differs from rank 0's: 2 parameters with 25 "
                         "elements on rank 1, 2 with 20 on rank 0"))
        << msg;
    // Forward twice with grad enabled and no backward in between.
    auto ddp = DistributedDataParallel(make_mlp(1));
    ddp(ember::randn({2, 10}));
    msg = error_of([&] { ddp(ember::randn({2, 10})); });
    EXPECT_TRUE(contains(msg, "expected to have finished reduction in the prior iteration")) << msg;
    EXPECT_TRUE(contains(msg, "under ember::NoGradGuard")) << msg;
    dist::destroy_process_group();
  });
}

TEST_P(DDP, ReplicasOnCudaDevices) {
  EMBER_SKIP_WITHOUT_CUDA();
  const int world = GetParam();
  run(world, [world] {
    init();
    const int me = dist::get_rank();
    ember::Device dev(ember::kCUDA,
                      static_cast<ember::DeviceIndex>(me % ember::cuda::device_count()));
    auto model = make_mlp(21);
    model->to(dev);
    auto reference = make_mlp(21);
    auto ddp = DistributedDataParallel(model);
    auto [x, y] = global_batch(4 * world, 3);
    nn::functional::mse_loss(ddp(shard(x, me, world).to(dev)), shard(y, me, world).to(dev))
        .backward();
    nn::functional::mse_loss(reference->forward(x), y).backward();
    auto got = model->named_parameters();
    auto want = reference->named_parameters();
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].value().grad().device(), dev);
      expect_close(got[i].value().grad().cpu(), want[i].value().grad(), 1e-5, 1e-6,
                   "grad of " + got[i].key() + " on " + dev.str());
    }
    dist::destroy_process_group();
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, DDP, ::testing::Values(2, 3),
                         [](const auto& info) { return std::to_string(info.param) + "ranks"; });

}  // namespace
