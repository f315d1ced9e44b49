// ember-run: the torchrun variables each rank gets, multi-node rank arithmetic, a failing or
// killed rank stopping the others with a message that names it, signal forwarding, the command
// line (CLI11): bad flags, --help, the program's own arguments.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/temp_dir.h"
#include "support/test_util.h"
#include "support/tool_path.h"

using ember::testing::contains;
using namespace std::chrono_literals;

namespace {

struct Outcome {
  int status = -1;  // wait status
  std::string err;  // ember-run's stderr (and the ranks')
  std::string out;  // ember-run's stdout (and the ranks')
  double seconds = 0;
};

using ember::testing::TempDir;

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs ember-run with `args`; `while_running` (if any) gets its pid.
Outcome run_launcher(const std::vector<std::string>& args,
                     const std::function<void(pid_t)>& while_running = nullptr) {
  const TempDir tmp("ember_run_test");
  const std::string err_path = tmp / "stderr", out_path = tmp / "stdout";
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    FILE* f = std::fopen(err_path.c_str(), "w");
    ::dup2(fileno(f), 2);
    FILE* o = std::fopen(out_path.c_str(), "w");
    ::dup2(fileno(o), 1);
    std::vector<std::string> copy = {ember::testing::tool_path(EMBER_RUN_EXE)};
    copy.insert(copy.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : copy) argv.push_back(s.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  if (while_running) while_running(pid);
  Outcome o;
  ::waitpid(pid, &o.status, 0);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  o.err = read(err_path);
  o.out = read(out_path);
  return o;
}

TEST(EmberRun, EveryRankGetsTheTorchrunVariables) {
  const TempDir tmp("ember_run_test");
  const std::string& dir = tmp.path();
  Outcome o = run_launcher({"--nproc-per-node", "3", "--master-port", "29123", "sh", "-c",
                            "echo \"$RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE $GROUP_RANK "
                            "$MASTER_ADDR $MASTER_PORT $OMP_NUM_THREADS\" > " +
                                dir + "/rank$RANK"});
  ASSERT_TRUE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << o.err;
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(read(dir + "/rank" + std::to_string(r)),
              std::to_string(r) + " 3 " + std::to_string(r) + " 3 0 127.0.0.1 29123 1\n");
  }
}

TEST(EmberRun, NodeRankOffsetsTheRanks) {
  const TempDir tmp("ember_run_test");
  const std::string& dir = tmp.path();
  Outcome o = run_launcher(
      {"--nnodes=2", "--node_rank=1", "--nproc_per_node=2", "--master-addr", "10.1.2.3", "--", "sh",
       "-c",
       "echo \"$RANK $WORLD_SIZE $LOCAL_RANK $GROUP_RANK $MASTER_ADDR\" > " + dir + "/rank$RANK"});
  ASSERT_TRUE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << o.err;
  EXPECT_EQ(read(dir + "/rank2"), "2 4 0 1 10.1.2.3\n");
  EXPECT_EQ(read(dir + "/rank3"), "3 4 1 1 10.1.2.3\n");
}

TEST(EmberRun, StandalonePicksAFreePort) {
  const TempDir tmp("ember_run_test");
  const std::string& dir = tmp.path();
  Outcome o = run_launcher({"--standalone", "--nproc-per-node", "2", "sh", "-c",
                            "echo $MASTER_PORT > " + dir + "/p$RANK"});
  ASSERT_TRUE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << o.err;
  EXPECT_EQ(read(dir + "/p0"), read(dir + "/p1"));
  EXPECT_NE(read(dir + "/p0"), "29500\n");
}

TEST(EmberRun, AFailingRankStopsTheOthersAndIsNamed) {
  const TempDir tmp("ember_run_test");
  const std::string& dir = tmp.path();
  // Rank 1 fails after a moment; the others would sleep for a minute and record if they finish.
  Outcome o = run_launcher(
      {"--nproc-per-node", "3", "--stop-timeout", "5", "sh", "-c",
       "if [ $RANK = 1 ]; then sleep 0.3; exit 3; fi; sleep 60; touch " + dir + "/finished$RANK"});
  ASSERT_TRUE(WIFEXITED(o.status)) << o.err;
  EXPECT_EQ(WEXITSTATUS(o.status), 3);
  EXPECT_TRUE(contains(o.err, "ember-run: rank 1 (local rank 1, pid ")) << o.err;
  EXPECT_TRUE(contains(o.err, ") exited with status 3; stopped the other ranks")) << o.err;
  EXPECT_LT(o.seconds, 10.0);
  EXPECT_EQ(read(dir + "/finished0"), "");
  EXPECT_EQ(read(dir + "/finished2"), "");
}

TEST(EmberRun, AKilledRankIsNamedWithItsSignal) {
  Outcome o = run_launcher(
      {"--nproc-per-node", "2", "sh", "-c", "if [ $RANK = 0 ]; then kill -9 $$; fi; sleep 60"});
  ASSERT_TRUE(WIFEXITED(o.status)) << o.err;
  EXPECT_EQ(WEXITSTATUS(o.status), 128 + 9);
  EXPECT_TRUE(contains(o.err, "rank 0 (local rank 0")) << o.err;
  EXPECT_TRUE(contains(o.err, "was killed by signal 9 (SIGKILL)")) << o.err;
  EXPECT_LT(o.seconds, 15.0);
}

TEST(EmberRun, RanksThatIgnoreSigtermAreKilledAfterTheGrace) {
  Outcome o = run_launcher({"--nproc-per-node", "2", "--stop-timeout", "1", "sh", "-c",
                            "trap '' TERM; if [ $RANK = 1 ]; then exit 4; fi; sleep 30"});
  ASSERT_TRUE(WIFEXITED(o.status)) << o.err;
  EXPECT_EQ(WEXITSTATUS(o.status), 4);
  EXPECT_LT(o.seconds, 10.0);
}

TEST(EmberRun, SignalsAreForwardedToTheRanks) {
  const TempDir tmp("ember_run_test");
  const std::string& dir = tmp.path();
  Outcome o = run_launcher({"--nproc-per-node", "2", "sh", "-c",
                            "trap 'echo got-term > " + dir +
                                "/term$RANK; exit 0' TERM; "
                                "touch " +
                                dir + "/up$RANK; while true; do sleep 0.05; done"},
                           [&](pid_t launcher) {
                             // Both ranks have installed their trap (bounded wait).
                             for (int i = 0; i < 400; ++i) {
                               if (::access((dir + "/up0").c_str(), F_OK) == 0 &&
                                   ::access((dir + "/up1").c_str(), F_OK) == 0) {
                                 break;
                               }
                               std::this_thread::sleep_for(25ms);
                             }
                             ::kill(launcher, SIGTERM);
                           });
  ASSERT_TRUE(WIFEXITED(o.status)) << o.err;
  EXPECT_EQ(WEXITSTATUS(o.status), 128 + SIGTERM);
  EXPECT_TRUE(contains(o.err, "received SIGTERM, forwarding it to the ranks")) << o.err;
  EXPECT_EQ(read(dir + "/term0"), "got-term\n");
  EXPECT_EQ(read(dir + "/term1"), "got-term\n");
}

// A rank's state from /proc: running, or gone (exited, or a zombie nobody has reaped yet).
bool process_alive(pid_t pid) {
  std::string stat = read("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

TEST(EmberRun, RanksDieWithAKilledLauncher) {
  const TempDir tmp("ember_run_test");
  const std::string& dir = tmp.path();
  std::vector<pid_t> rank_pids;
  Outcome o = run_launcher(
      {"--nproc-per-node", "2", "sh", "-c", "echo $$ > " + dir + "/pid$RANK; exec sleep 30"},
      [&](pid_t launcher) {
        for (int i = 0; i < 400 && rank_pids.size() < 2; ++i) {  // bounded: 10 s
          rank_pids.clear();
          for (int r = 0; r < 2; ++r) {
            std::string p = read(dir + "/pid" + std::to_string(r));
            if (!p.empty() && p.back() == '\n') rank_pids.push_back(std::stoi(p));
          }
          if (rank_pids.size() < 2) std::this_thread::sleep_for(25ms);
        }
        ::kill(launcher, SIGKILL);  // nothing can be forwarded
      });
  ASSERT_TRUE(WIFSIGNALED(o.status)) << o.err;
  ASSERT_EQ(rank_pids.size(), 2u) << "the ranks did not start: " << o.err;
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {  // bounded: 5 s
    gone = !process_alive(rank_pids[0]) && !process_alive(rank_pids[1]);
    if (!gone) std::this_thread::sleep_for(25ms);
  }
  EXPECT_TRUE(gone) << "ranks " << rank_pids[0] << " and " << rank_pids[1]
                    << " outlived their launcher";
  for (pid_t p : rank_pids) ::kill(p, SIGKILL);  // never leave them behind
}

TEST(EmberRun, BadCommandLinesAreExplained) {
  // Each: exit status 2, the message naming the flag and the value, then the usage.
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--nproc-per-node", "0", "true"}, "--nproc-per-node: must be at least 1, got 0"},
      {{"--nproc_per_node=5000", "true"}, "--nproc-per-node: must be at most 4096, got 5000"},
      {{"--nnodes", "two", "true"}, "--nnodes: expected an integer, got 'two'"},
      {{"--master-port", "99999999999", "true"}, "--master-port: '99999999999' is out of range"},
      {{"--master-addr", "", "true"}, "--master-addr: expected an address, got an empty string"},
      {{"--stop-timeout", "-1", "true"},
       "--stop-timeout: must be a non-negative finite number, got -1"},
      {{"--stop-timeout", "soon", "true"}, "--stop-timeout: expected a number, got 'soon'"},
      {{"true", "--nproc-per-node"}, ""},  // the program's argument: runs
      {{"--nproc-per-node"}, "--nproc-per-node: 1 required N missing"},
      {{"--nnodes", "2", "--node-rank", "2", "true"},
       "--node-rank 2 is out of range for --nnodes 2"},
      {{"--standalone", "--nnodes", "2", "true"}, "--standalone runs one node"},
      {{"--nproc-per-node", "2"}, "no program to run"},
      {{"--bogus", "true"}, "unknown argument '--bogus'"},
      {{"-x", "true"}, "unknown argument '-x'"},
  };
  for (const auto& [args, message] : cases) {
    Outcome o = run_launcher(args);
    ASSERT_TRUE(WIFEXITED(o.status)) << args[0] << " " << o.err;
    if (message.empty()) {
      EXPECT_EQ(WEXITSTATUS(o.status), 0) << args[0] << " " << o.err;
      continue;
    }
    EXPECT_EQ(WEXITSTATUS(o.status), 2) << message << "\n" << o.err;
    EXPECT_EQ(o.err.rfind("ember-run: " + message, 0), 0u) << o.err;
    EXPECT_TRUE(contains(o.err, "\nUsage: ember-run [OPTIONS] [--] PROGRAM [ARGS...]\n")) << o.err;
  }
  Outcome o = run_launcher({"/no/such/program"});
  EXPECT_EQ(WEXITSTATUS(o.status), 127);
  EXPECT_TRUE(contains(o.err, "cannot start '/no/such/program' for rank 0")) << o.err;
  EXPECT_TRUE(contains(o.err, "rank 0 (local rank 0")) << o.err;
}

// --help (CLI11's, tools/cli/app.h) on stdout, exit 0, even after other flags; every flag listed
// once, by its dashed name.
TEST(EmberRun, HelpListsEveryFlag) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--help"}, {"--nproc-per-node", "0", "-h", "--bogus"}}) {
    Outcome o = run_launcher(args);
    ASSERT_TRUE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << o.err;
    EXPECT_EQ(o.out.rfind("Usage: ember-run [OPTIONS] [--] PROGRAM [ARGS...]\n", 0), 0u) << o.out;
    for (const char* line :
         {"\n  -h, --help ", "\n  --nproc-per-node N ", "\n  --nnodes M ", "\n  --node-rank R ",
          "\n  --master-addr ADDR ", "\n  --master-port PORT ", "\n  --standalone ",
          "\n  --stop-timeout SECONDS", "\n  PROGRAM [ARGS...] "}) {
      EXPECT_TRUE(contains(o.out, line)) << line << "\n" << o.out;
    }
    EXPECT_FALSE(contains(o.out, "--nproc-per-node,")) << o.out;
    EXPECT_EQ(o.err, "");
  }
}

// Options end at the program (or "--"): what follows is the program's, "--help" and "--" too.
TEST(EmberRun, ArgumentsAfterTheProgramAreItsOwn) {
  const TempDir tmp("ember_run_test");
  const std::string& dir = tmp.path();
  const std::string script = "echo \"$0 $1 $2\" > " + dir + "/args";
  Outcome o = run_launcher({"--stop_timeout=1", "sh", "-c", script, "--help", "--", "-x"});
  ASSERT_TRUE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << o.err;
  EXPECT_EQ(read(dir + "/args"), "--help -- -x\n");
  o = run_launcher({"--", "sh", "-c", script, "--nproc-per-node", "2"});
  ASSERT_TRUE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << o.err;
  EXPECT_EQ(read(dir + "/args"), "--nproc-per-node 2 \n");
}

}  // namespace
