// Gloo collectives across 2 and 3 processes on loopback: every reduction and dtype against
// values computed here from the ranks' known inputs, async Work, send/recv, barrier, CUDA tensors
// (staged through host memory) and argument errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "ember/cuda.h"
#include "ember/distributed.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/cuda_skip.h"
#include "support/multi_process.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace dist = ember::distributed;
using ember::Tensor;
using ember::testing::run_ranks_and_check;

namespace {

constexpr auto kTimeout = std::chrono::seconds(30);

void init() {
  dist::init_process_group("gloo", dist::InitProcessGroupOptions().timeout(kTimeout));
}

// What rank r contributes: distinct, exactly representable values.
Tensor contribution(int r, ember::ScalarType dtype, int64_t n = 7) {
  return (ember::arange(n, ember::kDouble) * (r + 1) - r).to(dtype);
}

// Small integers, so sums and products of up to 3 ranks stay exact in every dtype (uint8 too).
Tensor small_values(int r) {
  return ember::tensor({1.0, 2.0, 0.0, 1.0, 2.0}, ember::kDouble) + r;
}

void run(int world_size, const std::function<void()>& body) {
  run_ranks_and_check({.world_size = world_size, .timeout = std::chrono::seconds(90)}, body);
}

class Collectives : public ::testing::TestWithParam<int> {};

TEST_P(Collectives, AllReduceEveryOpAndDtype) {
  const int world = GetParam();
  run(world, [world] {
    init();
    ASSERT_EQ(dist::get_world_size(), world);
    ASSERT_EQ(dist::get_backend(), "gloo");
    const int me = dist::get_rank();
    for (auto dtype : {ember::kFloat, ember::kDouble, ember::kHalf, ember::kBFloat16, ember::kLong,
                       ember::kInt, ember::kByte}) {
      for (auto op : {dist::ReduceOp::SUM, dist::ReduceOp::PRODUCT, dist::ReduceOp::MIN,
                      dist::ReduceOp::MAX, dist::ReduceOp::AVG}) {
        if (op == dist::ReduceOp::AVG && !ember::is_floating_point(dtype)) continue;
        // Small values so products and sums stay exact in every dtype.
        Tensor t = small_values(me).to(dtype);
        Tensor expected = small_values(0);
        for (int r = 1; r < world; ++r) {
          Tensor x = small_values(r);
          if (op == dist::ReduceOp::SUM || op == dist::ReduceOp::AVG) expected = expected + x;
          if (op == dist::ReduceOp::PRODUCT) expected = expected * x;
          if (op == dist::ReduceOp::MIN) expected = ember::minimum(expected, x);
          if (op == dist::ReduceOp::MAX) expected = ember::maximum(expected, x);
        }
        if (op == dist::ReduceOp::AVG) expected = expected / world;
        dist::all_reduce(t, op);
        ember::testing::expect_close(
            t.to(ember::kDouble), expected, 1e-2, 1e-6,
            std::string("all_reduce ") + dist::reduce_op_name(op) + " " + ember::to_string(dtype));
      }
    }
    Tensor flags = ember::tensor({me == 0 ? 1 : 0, 1, 0}).to(ember::kBool);
    dist::all_reduce(flags, dist::ReduceOp::SUM);  // or
    EXPECT_EQ(flags.to_vector<bool>(), (std::vector<bool>{true, true, false}));
    dist::destroy_process_group();
  });
}

TEST_P(Collectives, LargeAllReduceSumsExactly) {
  const int world = GetParam();
  run(world, [world] {
    init();
    const int64_t n = 3 * (1 << 20) + 17;  // several 4 MiB segments per rank's share, odd tail
    Tensor t = ember::full({n}, static_cast<double>(dist::get_rank() + 1), ember::kFloat);
    dist::all_reduce(t);
    const float want = static_cast<float>(world * (world + 1) / 2);
    EXPECT_EQ(t.min().item<float>(), want);
    EXPECT_EQ(t.max().item<float>(), want);

    // A group of its own with 64 KiB segments (Gloo's ring then sends each share in dozens of
    // pieces), over the rendezvous store rank 0 runs.
    dist::TCPStoreOptions client;
    client.port = static_cast<uint16_t>(std::stoi(std::getenv("MASTER_PORT")));
    auto store = std::make_shared<dist::PrefixStore>(
        "small-segments", std::make_shared<dist::TCPStore>(std::getenv("MASTER_ADDR"), client));
    dist::ProcessGroupGloo::Options options;
    options.timeout = kTimeout;
    options.allreduce_segment_bytes = 64 << 10;
    dist::ProcessGroupGloo group(store, dist::get_rank(), world, options);
    Tensor u = ember::arange(n, ember::kDouble) * (dist::get_rank() + 1);
    std::vector<Tensor> tensors{u};
    group.allreduce(tensors)->wait();
    EXPECT_TRUE(u.equal(ember::arange(n, ember::kDouble) * static_cast<double>(want)));
    group.shutdown();
    dist::destroy_process_group();
  });
}

TEST_P(Collectives, BroadcastAllGatherReduceScatter) {
  const int world = GetParam();
  run(world, [world] {
    init();
    const int me = dist::get_rank();
    // broadcast from the last rank
    Tensor b = contribution(me, ember::kFloat).reshape({7, 1});
    dist::broadcast(b, world - 1);
    EXPECT_TRUE(b.equal(contribution(world - 1, ember::kFloat).reshape({7, 1})));

    // all_gather into a list and into one tensor
    Tensor mine = contribution(me, ember::kLong).reshape({1, 7});
    std::vector<Tensor> gathered;
    dist::all_gather(gathered, mine);
    ASSERT_EQ(gathered.size(), static_cast<size_t>(world));
    for (int r = 0; r < world; ++r) {
      EXPECT_TRUE(gathered[r].equal(contribution(r, ember::kLong).reshape({1, 7}))) << "from " << r;
    }
    Tensor flat = ember::empty({world, 7}, ember::kLong);
    dist::all_gather_into_tensor(flat, mine);
    for (int r = 0; r < world; ++r) {
      EXPECT_TRUE(flat[r].equal(contribution(r, ember::kLong))) << "block " << r;
    }

    // reduce_scatter: rank r receives the sum over ranks of block r
    std::vector<Tensor> blocks;
    for (int j = 0; j < world; ++j) blocks.push_back(contribution(me, ember::kFloat, 5) * (j + 1));
    Tensor out = ember::empty({5}, ember::kFloat);
    dist::reduce_scatter(out, blocks, dist::ReduceOp::SUM);
    Tensor want = ember::zeros({5}, ember::kFloat);
    for (int r = 0; r < world; ++r) want = want + contribution(r, ember::kFloat, 5) * (me + 1);
    EXPECT_TRUE(out.equal(want)) << out << want;

    Tensor big_in = ember::cat(blocks, 0);
    Tensor out2 = ember::empty({5}, ember::kFloat);
    dist::reduce_scatter_tensor(out2, big_in, dist::ReduceOp::MAX);
    Tensor want_max = contribution(world - 1, ember::kFloat, 5) * (me + 1);
    for (int r = 0; r < world; ++r) {
      want_max = ember::maximum(want_max, contribution(r, ember::kFloat, 5) * (me + 1));
    }
    EXPECT_TRUE(out2.equal(want_max)) << out2 << want_max;

    // An uneven size: Gloo's halving-doubling splits 1001 elements per rank into odd chunks.
    Tensor odd_in = ember::arange(1001 * world, ember::kDouble) * (me + 1);
    Tensor odd_out = ember::empty({1001}, ember::kDouble);
    dist::reduce_scatter_tensor(odd_out, odd_in, dist::ReduceOp::AVG);
    Tensor odd_want = ember::arange(1001 * me, 1001 * (me + 1), ember::kDouble) * (world + 1) / 2.0;
    ember::testing::expect_close(odd_out, odd_want, 1e-12, 1e-12, "reduce_scatter AVG");
    dist::destroy_process_group();
  });
}

TEST_P(Collectives, SendRecvAroundARingAndFromAnySource) {
  const int world = GetParam();
  run(world, [world] {
    init();
    const int me = dist::get_rank();
    const int next = (me + 1) % world, prev = (me + world - 1) % world;
    Tensor out = contribution(me, ember::kFloat);
    Tensor in = ember::zeros({7});
    auto sending = dist::isend(out, next);
    auto receiving = dist::irecv(in, prev);
    receiving->wait();
    sending->wait();
    EXPECT_TRUE(in.equal(contribution(prev, ember::kFloat)));
    EXPECT_TRUE(receiving->is_completed());

    // Rank 0 receives from whoever sends (everyone else, one message each, tag 5).
    if (me == 0) {
      std::vector<bool> seen(static_cast<size_t>(world), false);
      for (int i = 1; i < world; ++i) {
        Tensor t = ember::zeros({7});
        int from = dist::recv(t, std::nullopt, nullptr, 5);
        ASSERT_GT(from, 0);
        EXPECT_TRUE(t.equal(contribution(from, ember::kFloat)));
        seen[static_cast<size_t>(from)] = true;
      }
      for (int r = 1; r < world; ++r) EXPECT_TRUE(seen[static_cast<size_t>(r)]) << r;
    } else {
      dist::send(contribution(me, ember::kFloat), 0, nullptr, 5);
    }
    dist::barrier();
    dist::destroy_process_group();
  });
}

TEST_P(Collectives, AsyncWorkCompletesInIssueOrder) {
  const int world = GetParam();
  run(world, [world] {
    init();
    const int me = dist::get_rank();
    std::vector<Tensor> tensors;
    std::vector<std::shared_ptr<dist::Work>> works;
    for (int i = 0; i < 8; ++i) {
      tensors.push_back(ember::full({1000 * (i + 1)}, static_cast<double>(me + i), ember::kFloat));
      works.push_back(dist::all_reduce(tensors.back(), dist::ReduceOp::SUM, /*async_op=*/true));
      ASSERT_NE(works.back(), nullptr);
    }
    for (int i = 7; i >= 0; --i) {
      EXPECT_TRUE(works[i]->wait());
      EXPECT_TRUE(works[i]->is_success());
      float want = static_cast<float>(world * (world - 1) / 2 + world * i);
      EXPECT_EQ(tensors[i].min().item<float>(), want) << i;
      EXPECT_EQ(works[i]->result().size(), 1u);
    }
    auto b = dist::barrier(/*async_op=*/true);
    b->wait();
    EXPECT_TRUE(b->is_completed());
    dist::destroy_process_group();
  });
}

TEST_P(Collectives, CudaTensorsTravelThroughHostMemory) {
  EMBER_SKIP_WITHOUT_CUDA();
  const int world = GetParam();
  run(world, [world] {
    init();
    const int me = dist::get_rank();
    ember::Device dev(ember::kCUDA,
                      static_cast<ember::DeviceIndex>(me % ember::cuda::device_count()));
    Tensor t = contribution(me, ember::kFloat).to(dev);
    dist::all_reduce(t, dist::ReduceOp::SUM);
    EXPECT_EQ(t.device(), dev);
    Tensor want = ember::zeros({7});
    for (int r = 0; r < world; ++r) want = want + contribution(r, ember::kFloat);
    EXPECT_TRUE(t.cpu().equal(want));
    Tensor b = contribution(me, ember::kFloat).to(dev);
    dist::broadcast(b, 0);
    EXPECT_TRUE(b.cpu().equal(contribution(0, ember::kFloat)));
    dist::destroy_process_group();
  });
}

TEST_P(Collectives, BadArgumentsAreRejectedOnTheCallingThread) {
  const int world = GetParam();
  run(world, [world] {
    init();
    using ember::testing::contains;
    using ember::testing::error_of;
    Tensor strided = ember::zeros({4, 4}).t();
    EXPECT_TRUE(contains(error_of<ember::ValueError>([&] { dist::all_reduce(strided); }),
                         "must be contiguous"));
    Tensor ints = ember::zeros({3}, ember::kLong);
    EXPECT_TRUE(
        contains(error_of<ember::TypeError>([&] { dist::all_reduce(ints, dist::ReduceOp::AVG); }),
                 "AVG needs a floating-point tensor, got Long"));
    Tensor t = ember::zeros({3});
    EXPECT_TRUE(contains(error_of<ember::ValueError>([&] { dist::broadcast(t, world); }),
                         "source rank " + std::to_string(world) + " is out of range"));
    EXPECT_TRUE(contains(error_of<ember::ValueError>([&] { dist::send(t, dist::get_rank()); }),
                         "is this process's own rank"));
    Tensor small = ember::zeros({2});
    EXPECT_TRUE(
        contains(error_of<ember::ValueError>([&] { dist::all_gather_into_tensor(small, t); }),
                 "world_size (" + std::to_string(world) + ") times the input's elements"));
    // The group still works after the refusals (none of them reached Gloo).
    Tensor one = ember::ones({3});
    dist::all_reduce(one);
    EXPECT_EQ(one.sum().item<float>(), 3.0f * world);
    dist::destroy_process_group();
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, Collectives, ::testing::Values(2, 3),
                         [](const auto& info) { return std::to_string(info.param) + "ranks"; });

TEST(Distributed, NotInitializedSaysSo) {
  EXPECT_FALSE(dist::is_initialized());
  EXPECT_TRUE(
      ember::testing::contains(ember::testing::error_of<dist::DistError>([] { dist::get_rank(); }),
                               "call init_process_group"));
}

TEST(Distributed, GlooSegmentSizeMustBePositive) {
  dist::TCPStoreOptions master;
  master.port = 0;
  master.is_master = true;
  master.num_workers = 1;
  master.wait_for_workers = false;
  auto store = std::make_shared<dist::TCPStore>("127.0.0.1", master);
  dist::ProcessGroupGloo::Options options;
  options.allreduce_segment_bytes = 0;
  const std::string message = ember::testing::error_of<ember::ValueError>(
      [&] { dist::ProcessGroupGloo group(store, 0, 1, options); });
  EXPECT_TRUE(ember::testing::contains(message, "allreduce_segment_bytes must be positive, got 0"))
      << message;
}

TEST(Distributed, WorldOfOneNeedsNoPeers) {
  dist::init_process_group(
      "gloo", dist::InitProcessGroupOptions()
                  .init_method("tcp://127.0.0.1:" + std::to_string(ember::testing::free_port()))
                  .rank(0)
                  .world_size(1)
                  .timeout(kTimeout));
  Tensor t = ember::arange(5, ember::kFloat);
  dist::all_reduce(t, dist::ReduceOp::AVG);
  EXPECT_TRUE(t.equal(ember::arange(5, ember::kFloat)));
  std::vector<Tensor> all;
  dist::all_gather(all, t);
  EXPECT_EQ(all.size(), 1u);
  dist::barrier();
  dist::destroy_process_group();
  EXPECT_FALSE(dist::is_initialized());
}

}  // namespace
