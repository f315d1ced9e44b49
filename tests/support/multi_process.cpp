// run_ranks: fork/exec this test binary once per rank, filtered to the running test, with the
// torchrun variables set; wait with a deadline; collect exit statuses and output.
#include "support/multi_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace ember::testing {
namespace {

constexpr const char* kRankMarker = "EMBER_TEST_RANK_PROCESS";

std::string self_exe() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  buf[n] = 0;
  return buf;
}

std::string current_test_filter() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(info->test_suite_name()) + "." + info->name();
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

bool is_rank_process() {
  const char* v = std::getenv(kRankMarker);
  return v && std::string(v) == "1";
}

int test_rank() {
  if (!is_rank_process()) return -1;
  const char* r = std::getenv("RANK");
  return r ? std::atoi(r) : -1;
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  a.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

std::vector<RankResult> run_ranks(const RankLaunch& launch, const std::function<void()>& body) {
  if (is_rank_process()) {
    body();
    return {};
  }
  const std::string exe = self_exe();
  const std::string filter = "--gtest_filter=" + current_test_filter();
  const int port = launch.master_port ? launch.master_port : free_port();
  struct Child {
    pid_t pid;
    std::string log;
    std::chrono::steady_clock::time_point start;
  };
  std::vector<Child> children;
  std::vector<int> ranks = launch.ranks;
  if (ranks.empty()) {
    for (int r = 0; r < launch.world_size; ++r) ranks.push_back(r);
  }
  std::vector<RankResult> results(ranks.size());
  for (size_t slot = 0; slot < ranks.size(); ++slot) {
    const int rank = ranks[slot];
    std::map<std::string, std::string> env = {
        {kRankMarker, "1"},
        {"RANK", std::to_string(rank)},
        {"LOCAL_RANK", std::to_string(rank)},
        {"WORLD_SIZE", std::to_string(launch.world_size)},
        {"LOCAL_WORLD_SIZE", std::to_string(launch.world_size)},
        {"MASTER_ADDR", launch.master_addr},
        {"MASTER_PORT", std::to_string(port)},
        // Several ranks share two cores: one thread each keeps them from fighting.
        {"OMP_NUM_THREADS", "1"},
    };
    for (const auto& [k, v] : launch.env) env[k] = v;
    if (launch.env_for_rank) {
      for (const auto& [k, v] : launch.env_for_rank(rank)) env[k] = v;
    }
    std::vector<std::string> argv;
    if (launch.command_prefix) argv = launch.command_prefix(rank);
    if (launch.command.empty()) {
      argv.push_back(exe);
      argv.push_back(filter);
    } else {
      argv.insert(argv.end(), launch.command.begin(), launch.command.end());
    }
    char log_template[] = "/tmp/ember_rank_XXXXXX";
    int log_fd = ::mkstemp(log_template);
    pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(log_fd, 1);
      ::dup2(log_fd, 2);
      ::setpgid(0, 0);
      for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      std::fprintf(stderr, "exec %s failed: %s\n", args[0], std::strerror(errno));
      ::_exit(127);
    }
    ::close(log_fd);
    children.push_back({pid, log_template, std::chrono::steady_clock::now()});
    results[slot].rank = rank;
  }
  // Reap with a deadline; kill everyone left at the timeout.
  const auto deadline = std::chrono::steady_clock::now() + launch.timeout;
  size_t left = children.size();
  std::vector<bool> done(children.size(), false);
  while (left > 0) {
    bool progressed = false;
    for (size_t i = 0; i < children.size(); ++i) {
      if (done[i]) continue;
      int status = 0;
      pid_t r = ::waitpid(children[i].pid, &status, WNOHANG);
      if (r != children[i].pid) continue;
      done[i] = true;
      --left;
      progressed = true;
      RankResult& res = results[i];
      res.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - children[i].start)
              .count();
      if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) res.signal = WTERMSIG(status);
    }
    if (left == 0) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      for (size_t i = 0; i < children.size(); ++i) {
        if (done[i]) continue;
        ::kill(-children[i].pid, SIGKILL);
        ::kill(children[i].pid, SIGKILL);
        int status = 0;
        ::waitpid(children[i].pid, &status, 0);
        results[i].killed_at_timeout = true;
        results[i].signal = SIGKILL;
        results[i].seconds = static_cast<double>(launch.timeout.count());
        done[i] = true;
      }
      break;
    }
    if (!progressed) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (size_t i = 0; i < children.size(); ++i) {
    results[i].output = read_file(children[i].log);
    ::unlink(children[i].log.c_str());
  }
  return results;
}

void report(const std::string& what) {
  std::printf("REPORT: %s\n", what.c_str());
  std::fflush(stdout);
}

void echo_reports(const std::vector<RankResult>& results) {
  for (const auto& r : results) {
    size_t pos = 0;
    while ((pos = r.output.find("REPORT: ", pos)) != std::string::npos) {
      size_t end = r.output.find('\n', pos);
      if (end == std::string::npos) end = r.output.size();
      std::printf("[rank %d] %s\n", r.rank, r.output.substr(pos + 8, end - pos - 8).c_str());
      pos = end;
    }
  }
}

std::string describe(const RankResult& r) {
  std::ostringstream os;
  os << "rank " << r.rank;
  if (r.killed_at_timeout) {
    os << " was killed at the test's timeout (hung)";
  } else if (r.signal) {
    os << " died of signal " << r.signal << " (" << strsignal(r.signal) << ")";
  } else {
    os << " exited with status " << r.exit_code;
  }
  os << " after " << r.seconds << " s; its output:\n" << r.output;
  return os.str();
}

void expect_ranks_succeeded(const std::vector<RankResult>& results) {
  for (const auto& r : results) {
    // The filter must have matched this very test in the rank, or nothing ran there.
    bool ran = r.output.find("[  PASSED  ] 1 test.") != std::string::npos;
    EXPECT_TRUE(r.exit_code == 0 && r.signal == 0 && ran) << describe(r);
  }
}

void run_ranks_and_check(const RankLaunch& launch, const std::function<void()>& body,
                         const RankResultsCheck& check) {
  std::vector<RankResult> results = run_ranks(launch, body);
  if (is_rank_process()) return;
  echo_reports(results);
  check(results);
}

}  // namespace ember::testing
