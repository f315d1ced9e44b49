#pragma once
// Multi-process tests: a test starts N copies of its own binary, filtered to itself, as the ranks
// of a process group (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT set as ember-run would), then
// checks how each one ended. Inside a rank the same test body runs the rank's part:
//
//   TEST(Distributed, AllReduce) {
//     ember::testing::run_ranks_and_check({.world_size = 3}, [] {
//       ember::distributed::init_process_group("gloo");
//       ...  // gtest assertions here fail the rank, and so the test
//     });  // optional third argument: what to check of the ranks' results
//   }
//
// Every rank is killed at the launch's timeout, so a hang fails the test instead of blocking it.
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ember::testing {

struct RankResult {
  int rank = -1;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  bool killed_at_timeout = false;
  double seconds = 0;  // from start to end
  std::string output;  // stdout and stderr
};

struct RankLaunch {
  int world_size = 2;
  // Ranks to start (default: all of 0..world_size-1); e.g. {0, 1} of 3 to leave one missing, or
  // {0, 1, 1} for a rank started twice.
  std::vector<int> ranks;
  std::chrono::seconds timeout{120};
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  // 0: a free port
  // Extra environment for every rank / for one rank (overrides the defaults).
  std::map<std::string, std::string> env;
  std::function<std::map<std::string, std::string>(int rank)> env_for_rank;
  // A program to start instead of this test (e.g. a Python peer); its ranks report through their
  // exit status only.
  std::vector<std::string> command;
  // A command to run the rank under (e.g. {"ip", "netns", "exec", "ns0"}).
  std::function<std::vector<std::string>(int rank)> command_prefix;
};

// Whether this process is a rank started by run_ranks.
bool is_rank_process();
// This rank's number (from RANK), -1 in the parent.
int test_rank();

// Parent: starts the ranks and waits for them; returns one result per rank.
// Rank process: runs `body` and returns nothing.
std::vector<RankResult> run_ranks(const RankLaunch& launch, const std::function<void()>& body);

// Every rank exited with status 0 after running its test (prints the output of those that did
// not).
void expect_ranks_succeeded(const std::vector<RankResult>& results);

using RankResultsCheck = std::function<void(const std::vector<RankResult>&)>;
// A multi-process test in one call: starts the ranks of `launch` running `body`; then, in the
// parent only, echoes every rank's reports and hands the results to `check` (by default
// expect_ranks_succeeded). In a rank process it returns once `body` has.
void run_ranks_and_check(const RankLaunch& launch, const std::function<void()>& body,
                         const RankResultsCheck& check = expect_ranks_succeeded);
// In a rank: prints "REPORT: <what>" for the parent to echo. In the parent: prints every rank's
// reports as "[rank r] <what>", so the messages and figures ranks saw are in the test's log.
void report(const std::string& what);
void echo_reports(const std::vector<RankResult>& results);
// A rank's output, for failure messages.
std::string describe(const RankResult& r);

// A TCP port nobody listens on right now (bind to port 0, read it back, close).
int free_port();

}  // namespace ember::testing
