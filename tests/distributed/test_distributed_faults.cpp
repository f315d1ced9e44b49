// Faults across processes: a rank killed mid-training makes the others fail with an error that
// names it, well within the timeout (no hang); a wrong address, port or world size, a missing or
// duplicated rank give clear errors; a store that is not up yet is waited for.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "ember/distributed.h"
#include "ember/nn.h"
#include "ember/ops.h"
#include "ember/optim.h"
#include "support/multi_process.h"
#include "support/test_util.h"

namespace dist = ember::distributed;
using ember::Tensor;
using ember::testing::contains;
using ember::testing::describe;
using ember::testing::RankResult;
using ember::testing::report;
using ember::testing::run_ranks_and_check;
using namespace std::chrono_literals;

namespace {

// Trains a small model data-parallel by hand (all_reduce of each gradient) for many steps.
void train_until_error(int die_rank, int die_after_steps) {
  dist::init_process_group("gloo", dist::InitProcessGroupOptions().timeout(20s));
  const int me = dist::get_rank();
  ember::manual_seed(1);
  auto model = ember::nn::Linear(64, 64);
  ember::optim::SGD opt(model->parameters(), ember::optim::SGDOptions(0.01));
  auto start = std::chrono::steady_clock::now();
  try {
    for (int step = 0; step < 100000; ++step) {
      if (me == die_rank && step == die_after_steps) ::raise(SIGKILL);
      opt.zero_grad();
      ember::Tensor loss = model->forward(ember::randn({32, 64})).pow(2).mean();
      loss.backward();
      for (auto& p : model->parameters()) {
        Tensor g = p.grad();
        dist::all_reduce(g, dist::ReduceOp::AVG);
      }
      opt.step();
      ASSERT_LT(std::chrono::steady_clock::now() - start, 60s) << "the dead rank went unnoticed";
    }
    FAIL() << "training never failed";
  } catch (const dist::DistBackendError& e) {
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report(e.what());
    EXPECT_TRUE(contains(e.what(), "rank " + std::to_string(die_rank) + " has exited or died"))
        << e.what();
    EXPECT_LT(took, 20.0) << "noticed only after the timeout";
  }
  // The group refuses further work with the same explanation instead of hanging.
  Tensor t = ember::ones({4});
  std::string again =
      ember::testing::error_of<dist::DistBackendError>([&] { dist::all_reduce(t); });
  EXPECT_TRUE(contains(again, "unusable after an earlier failure") ||
              contains(again, "exited or died"))
      << again;
  // Leaving cleanly keeps rank 0's store up until the others have left too, so every survivor
  // can still learn from it which rank died.
  dist::destroy_process_group();
  std::_Exit(::testing::Test::HasFailure() ? 1 : 0);
}

TEST(DistributedFaults, KilledRankIsNamedByTheOthersWithoutAHang) {
  run_ranks_and_check(
      {.world_size = 3, .timeout = 90s}, [] { train_until_error(/*die_rank=*/2, /*steps=*/20); },
      [](const std::vector<RankResult>& results) {
        ASSERT_EQ(results.size(), 3u);
        EXPECT_EQ(results[2].signal, SIGKILL) << describe(results[2]);
        for (int r : {0, 1}) {
          EXPECT_EQ(results[r].exit_code, 0) << describe(results[r]);
          EXPECT_TRUE(contains(results[r].output, "REPORT: Gloo")) << describe(results[r]);
          EXPECT_LT(results[r].seconds, 30.0) << describe(results[r]);
        }
      });
}

TEST(DistributedFaults, KilledMasterIsNamedToo) {
  run_ranks_and_check(
      {.world_size = 2, .timeout = 90s}, [] { train_until_error(/*die_rank=*/0, /*steps=*/10); },
      [](const std::vector<RankResult>& results) {
        EXPECT_EQ(results[0].signal, SIGKILL) << describe(results[0]);
        EXPECT_EQ(results[1].exit_code, 0) << describe(results[1]);
        EXPECT_TRUE(contains(results[1].output, "rank 0 has exited or died"))
            << describe(results[1]);
      });
}

// Every rank issues `issue(rank)` after a first all_reduce that matches: one rank's call differs
// from the others' (another collective, other sizes or dtypes). Each rank must get a
// DistBackendError naming the mismatch well before the timeout (not crash in Gloo, not hang),
// the group must refuse further work, and destroy_process_group must still work.
void mismatched_collective(const std::function<void(int rank)>& issue,
                           const std::vector<std::string>& expected_parts) {
  dist::init_process_group("gloo", dist::InitProcessGroupOptions().timeout(120s));
  const int me = dist::get_rank();
  Tensor warm = ember::ones({4});
  dist::all_reduce(warm);
  EXPECT_EQ(warm.sum().item<float>(), 4.0f * dist::get_world_size());
  auto start = std::chrono::steady_clock::now();
  std::string msg = ember::testing::error_of<dist::DistBackendError>([&] { issue(me); });
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report(msg);
  EXPECT_TRUE(contains(msg, "collective mismatch")) << msg;
  for (const auto& part : expected_parts) EXPECT_TRUE(contains(msg, part)) << part << " in " << msg;
  EXPECT_LT(took, 20.0) << "noticed only after " << took << " s";
  Tensor t = ember::ones({4});
  std::string again =
      ember::testing::error_of<dist::DistBackendError>([&] { dist::all_reduce(t); });
  EXPECT_TRUE(contains(again, "unusable after an earlier failure")) << again;
  EXPECT_TRUE(contains(again, "collective mismatch")) << again;
  dist::destroy_process_group();
  EXPECT_FALSE(dist::is_initialized());
  EXPECT_EQ((ember::ones({3}) * 2).sum().item<float>(), 6.0f);  // the process goes on
  std::_Exit(::testing::Test::HasFailure() ? 1 : 0);
}

void expect_every_rank_reported_an_error(const std::vector<RankResult>& results) {
  for (const auto& r : results) {
    EXPECT_EQ(r.signal, 0) << describe(r);
    EXPECT_FALSE(r.killed_at_timeout) << describe(r);
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_TRUE(contains(r.output, "REPORT: Gloo")) << describe(r);
  }
}

// One mismatch test: `world_size` ranks run mismatched_collective(issue, expected_parts), and
// each must report its error and exit cleanly.
void expect_mismatch_on_every_rank(int world_size, const std::function<void(int rank)>& issue,
                                   const std::vector<std::string>& expected_parts) {
  run_ranks_and_check(
      {.world_size = world_size, .timeout = 60s},
      [&] { mismatched_collective(issue, expected_parts); }, expect_every_rank_reported_an_error);
}

TEST(DistributedFaults, AllReduceAgainstBarrierIsAMismatchOnEveryRank) {
  expect_mismatch_on_every_rank(
      2,
      [](int rank) {
        if (rank == 0) {
          Tensor t = ember::ones({4});
          dist::all_reduce(t);
        } else {
          dist::barrier();
        }
      },
      {"all_reduce(float32, 4 elements, SUM)", "barrier()", "rank 0", "rank 1"});
}

TEST(DistributedFaults, AllReduceOfDifferentSizesIsAMismatchOnEveryRank) {
  expect_mismatch_on_every_rank(
      2,
      [](int rank) {
        Tensor t = ember::ones({rank == 0 ? 4 : 8});
        dist::all_reduce(t);
      },
      {"all_reduce(float32, 4 elements, SUM)", "all_reduce(float32, 8 elements, SUM)"});
}

TEST(DistributedFaults, AllReduceOfDifferentDtypesIsAMismatchOnEveryRank) {
  expect_mismatch_on_every_rank(
      2,
      [](int rank) {
        Tensor t = ember::ones(
            {64}, ember::TensorOptions().dtype(rank == 0 ? ember::kFloat : ember::kDouble));
        dist::all_reduce(t);
      },
      {"all_reduce(float32, 64 elements, SUM)", "all_reduce(float64, 64 elements, SUM)"});
}

TEST(DistributedFaults, ReduceScatterOfDifferentSizesIsAMismatchOnEveryRank) {
  expect_mismatch_on_every_rank(2,
                                [](int rank) {
                                  const int64_t n = rank == 0 ? 4 : 16;
                                  Tensor out = ember::zeros({n});
                                  dist::reduce_scatter_tensor(out, ember::ones({2 * n}));
                                },
                                {"reduce_scatter_tensor(float32, 8 elements, SUM)",
                                 "reduce_scatter_tensor(float32, 32 elements, SUM)"});
}

TEST(DistributedFaults, OneOfThreeRanksBroadcastingIsAMismatchOnEveryRank) {
  expect_mismatch_on_every_rank(
      3,
      [](int rank) {
        Tensor t = ember::ones({4});
        if (rank == 2) {
          dist::broadcast(t, 0);
        } else {
          dist::all_reduce(t);
        }
      },
      {"all_reduce(float32, 4 elements, SUM)", "broadcast(float32, 4 elements, root 0)", "rank 2"});
}

TEST(DistributedFaults, SendAndRecvOfDifferentSizesFailInsteadOfAborting) {
  // Rank 0 sends 8 floats, rank 1 receives 4: they must not pair up (Gloo would abort rank 1
  // when 32 bytes arrive for a 16-byte buffer); both fail at the timeout, naming the sizes.
  run_ranks_and_check(
      {.world_size = 2, .timeout = 60s},
      [] {
        dist::init_process_group("gloo", dist::InitProcessGroupOptions().timeout(3s));
        const int me = dist::get_rank();
        Tensor ok = ember::full({2}, 5.0f);
        if (me == 0) {
          dist::send(ok, 1, nullptr, /*tag=*/7);
        } else {
          Tensor got = ember::zeros({2});
          EXPECT_EQ(dist::recv(got, 0, nullptr, /*tag=*/7), 0);
          EXPECT_EQ(got.sum().item<float>(), 10.0f);
        }
        auto start = std::chrono::steady_clock::now();
        std::string msg = ember::testing::error_of<dist::DistBackendError>([&] {
          if (me == 0) {
            dist::send(ember::ones({8}), 1);
          } else {
            Tensor t = ember::zeros({4});
            dist::recv(t, 0);
          }
        });
        report(msg);
        EXPECT_TRUE(contains(msg, me == 0 ? "32 bytes" : "16 bytes")) << msg;
        EXPECT_TRUE(contains(msg, "same size")) << msg;
        EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);
        // The group refuses further work, by name, in every kind of call.
        Tensor t = ember::ones({2});
        std::string again = ember::testing::error_of<dist::DistBackendError>(
            [&] { me == 0 ? dist::send(t, 1) : (void)dist::recv(t, 0); });
        EXPECT_TRUE(contains(again, "unusable after an earlier failure")) << again;
        again = ember::testing::error_of<dist::DistBackendError>([&] { dist::all_reduce(t); });
        EXPECT_TRUE(contains(again, "unusable after an earlier failure")) << again;
        dist::destroy_process_group();
        std::_Exit(::testing::Test::HasFailure() ? 1 : 0);
      },
      expect_every_rank_reported_an_error);
}

// Rank 0 is started with WORLD_SIZE=2, rank 1 with WORLD_SIZE=3 (after `rank1_delay`): both must
// say so at once, not at the rendezvous timeout (a minute here, 30 minutes by default).
void expect_world_size_mismatch_named_at_once(std::chrono::milliseconds rank1_delay) {
  ember::testing::RankLaunch launch{.world_size = 2, .ranks = {0, 1}, .timeout = 50s};
  launch.env_for_rank = [](int rank) {
    return std::map<std::string, std::string>{{"WORLD_SIZE", rank == 0 ? "2" : "3"}};
  };
  run_ranks_and_check(launch, [rank1_delay] {
    if (ember::testing::test_rank() == 1) std::this_thread::sleep_for(rank1_delay);
    auto start = std::chrono::steady_clock::now();
    std::string msg = ember::testing::error_of<ember::ValueError>(
        [] { dist::init_process_group("gloo", dist::InitProcessGroupOptions().timeout(60s)); });
    report(msg);
    EXPECT_TRUE(contains(msg, "world size mismatch")) << msg;
    EXPECT_TRUE(contains(msg, "rank 0 with WORLD_SIZE=2") ||
                contains(msg, "rank 0 was started with WORLD_SIZE=2"))
        << msg;
    EXPECT_TRUE(contains(msg, "rank 1 with WORLD_SIZE=3") ||
                contains(msg, "rank 1 was started with WORLD_SIZE=3"))
        << msg;
    EXPECT_LT(std::chrono::steady_clock::now() - start, 15s) << "named only at the timeout";
  });
}

TEST(DistributedFaults, WorldSizeMismatchIsNamedOnEveryRank) {
  expect_world_size_mismatch_named_at_once(0ms);
}

TEST(DistributedFaults, WorldSizeMismatchOfALateRankIsNamedAtOnce) {
  // Rank 0 has joined alone as one of 2 when rank 1 arrives as one of 3: before, nobody saw the
  // count reach their world size and both waited for the timeout.
  expect_world_size_mismatch_named_at_once(1500ms);
}

TEST(DistributedFaults, MissingRankIsNamedAtTheTimeout) {
  // Rank 2 never starts.
  run_ranks_and_check({.world_size = 3, .ranks = {0, 1}, .timeout = 60s}, [] {
    auto start = std::chrono::steady_clock::now();
    std::string msg = ember::testing::error_of<dist::DistStoreError>(
        [] { dist::init_process_group("gloo", dist::InitProcessGroupOptions().timeout(2s)); });
    report(msg);
    EXPECT_TRUE(contains(msg, "missing: rank 2 (joined: 0, 1)")) << msg;
    EXPECT_LT(std::chrono::steady_clock::now() - start, 15s);
  });
}

TEST(DistributedFaults, RankStartedTwiceIsRefused) {
  run_ranks_and_check(
      {.world_size = 3, .ranks = {0, 1, 1}, .timeout = 60s},
      [] {
        try {
          dist::init_process_group("gloo", dist::InitProcessGroupOptions().timeout(3s));
          report("joined");
          dist::destroy_process_group();
        } catch (const ember::ValueError& e) {
          report(e.what());
        } catch (const dist::DistError& e) {
          report(e.what());  // the other ranks time out waiting for rank 2
        }
      },
      [](const std::vector<RankResult>& results) {
        int refused = 0;
        for (const auto& r : results) {
          if (contains(r.output, "rank 1 is already taken by process")) ++refused;
          EXPECT_FALSE(contains(r.output, "REPORT: joined")) << describe(r);
        }
        EXPECT_EQ(refused, 1);
      });
}

TEST(DistributedFaults, StoreNotUpYetIsWaitedFor) {
  run_ranks_and_check({.world_size = 2, .timeout = 60s}, [] {
    if (dist::InitProcessGroupOptions().rank() < 0 && ember::testing::test_rank() == 0) {
      std::this_thread::sleep_for(1500ms);  // the master starts late
    }
    dist::init_process_group("gloo", dist::InitProcessGroupOptions().timeout(20s));
    Tensor t = ember::ones({3});
    dist::all_reduce(t);
    EXPECT_EQ(t.sum().item<float>(), 6.0f);
    dist::destroy_process_group();
  });
}

TEST(DistributedFaults, WrongPortOrAddressFailsWithinTheTimeout) {
  // Rank 1 of 2 looks for a master where there is none.
  const int port = ember::testing::free_port();
  auto start = std::chrono::steady_clock::now();
  std::string msg = ember::testing::error_of<dist::DistNetworkError>([&] {
    dist::init_process_group("gloo", dist::InitProcessGroupOptions()
                                         .init_method("tcp://127.0.0.1:" + std::to_string(port))
                                         .rank(1)
                                         .world_size(2)
                                         .timeout(1s));
  });
  EXPECT_TRUE(contains(msg, "127.0.0.1:" + std::to_string(port))) << msg;
  EXPECT_TRUE(contains(msg, "are MASTER_ADDR and MASTER_PORT right?")) << msg;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);

  msg = ember::testing::error_of<dist::DistNetworkError>([] {
    dist::init_process_group("gloo", dist::InitProcessGroupOptions()
                                         .init_method("tcp://no-such-host.invalid:29500")
                                         .rank(1)
                                         .world_size(2)
                                         .timeout(30s));
  });
  EXPECT_TRUE(contains(msg, "cannot resolve the address")) << msg;
  EXPECT_TRUE(contains(msg, "no-such-host.invalid")) << msg;
  EXPECT_FALSE(dist::is_initialized());
}

TEST(DistributedFaults, BadEnvironmentIsNamed) {
  using ember::testing::error_of;
  ::setenv("MASTER_ADDR", "127.0.0.1", 1);
  ::setenv("MASTER_PORT", "29500", 1);
  ::setenv("WORLD_SIZE", "2", 1);
  ::unsetenv("RANK");
  std::string msg = error_of<ember::ValueError>([] { dist::init_process_group("gloo"); });
  EXPECT_TRUE(contains(msg, "environment variable RANK is not set")) << msg;
  ::setenv("RANK", "two", 1);
  msg = error_of<ember::ValueError>([] { dist::init_process_group("gloo"); });
  EXPECT_TRUE(contains(msg, "RANK='two' is not an integer")) << msg;
  ::setenv("RANK", "2", 1);
  msg = error_of<ember::ValueError>([] { dist::init_process_group("gloo"); });
  EXPECT_TRUE(contains(msg, "RANK=2 is out of range for WORLD_SIZE=2")) << msg;
  ::setenv("RANK", "0", 1);
  ::setenv("MASTER_PORT", "70000", 1);
  msg = error_of<ember::ValueError>([] { dist::init_process_group("gloo"); });
  EXPECT_TRUE(contains(msg, "MASTER_PORT=70000 is not a TCP port")) << msg;
  msg = error_of<ember::ValueError>([] { dist::init_process_group("mpi"); });
  EXPECT_TRUE(contains(msg, "invalid backend 'mpi'")) << msg;
  for (const char* v : {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK"}) ::unsetenv(v);
}

}  // namespace
