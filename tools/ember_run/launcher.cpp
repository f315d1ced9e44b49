// launch(): fork/exec the node's ranks with the torchrun variables, then wait for signals and
// child exits with sigtimedwait (no handler races): forward INT/TERM/HUP, and on the first
// failure stop everyone else (SIGTERM, SIGKILL after the grace period).
#include "launcher.h"

#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

namespace ember_run {
namespace {

using Clock = std::chrono::steady_clock;

struct Rank {
  pid_t pid = -1;
  int local_rank = 0;
  int global_rank = 0;
  bool running = true;
  int status = 0;
};

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

void message(const std::string& text) {
  std::fprintf(stderr, "ember-run: %s\n", text.c_str());
  std::fflush(stderr);
}

bool failed(int wait_status) {
  return !(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0);
}

int exit_code_for(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status) ? WEXITSTATUS(wait_status) : 1;
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : std::to_string(sig);
}

}  // namespace

std::string describe_status(int wait_status) {
  if (WIFEXITED(wait_status))
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    int sig = WTERMSIG(wait_status);
    return "was killed by signal " + std::to_string(sig) + " (" + signal_name(sig) + ")" +
           (WCOREDUMP(wait_status) ? ", core dumped" : "");
  }
  return "ended with wait status " + std::to_string(wait_status);
}

int launch(const Args& args) {
  const std::string addr = args.standalone ? "127.0.0.1" : args.master_addr;
  const int port = args.standalone ? free_port() : args.master_port;
  const int world = args.nnodes * args.nproc_per_node;

  sigset_t watched, previous;
  sigemptyset(&watched);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&watched, s);
  sigprocmask(SIG_BLOCK, &watched, &previous);

  std::vector<Rank> ranks;
  for (int local = 0; local < args.nproc_per_node; ++local) {
    Rank r;
    r.local_rank = local;
    r.global_rank = args.node_rank * args.nproc_per_node + local;
    std::map<std::string, std::string> env = {
        {"MASTER_ADDR", addr},
        {"MASTER_PORT", std::to_string(port)},
        {"WORLD_SIZE", std::to_string(world)},
        {"RANK", std::to_string(r.global_rank)},
        {"LOCAL_RANK", std::to_string(local)},
        {"LOCAL_WORLD_SIZE", std::to_string(args.nproc_per_node)},
        {"GROUP_RANK", std::to_string(args.node_rank)},
    };
    const pid_t launcher = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) {
      message(std::string("fork failed: ") + strerror(errno));
      for (auto& started : ranks) ::kill(started.pid, SIGKILL);
      return 1;
    }
    if (pid == 0) {
      // Tied to the launcher: if it dies, even by SIGKILL (which it cannot forward), the rank is
      // killed too rather than running on, or waiting in a collective, with no one to stop it.
      // The flag survives exec; the getppid check covers a launcher gone before the prctl.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != launcher) ::_exit(128 + SIGKILL);
      sigprocmask(SIG_SETMASK, &previous, nullptr);
      for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
      // Several ranks on one node share its cores: one OpenMP thread each unless told otherwise.
      if (args.nproc_per_node > 1) ::setenv("OMP_NUM_THREADS", "1", 0);
      std::vector<char*> argv;
      std::vector<std::string> copy = rank_command(args.command);
      for (auto& s : copy) argv.push_back(s.data());
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
      std::fprintf(stderr, "ember-run: cannot start '%s' for rank %d: %s\n", argv[0], r.global_rank,
                   strerror(errno));
      ::_exit(127);
    }
    r.pid = pid;
    ranks.push_back(r);
  }

  const Rank* root_cause = nullptr;
  int interrupted_by = 0;
  bool stopping = false;
  Clock::time_point kill_deadline{};
  auto running = [&] {
    int n = 0;
    for (const auto& r : ranks) n += r.running ? 1 : 0;
    return n;
  };
  auto signal_all = [&](int sig) {
    for (const auto& r : ranks) {
      if (r.running) ::kill(r.pid, sig);
    }
  };
  auto begin_stop = [&] {
    if (stopping) return;
    stopping = true;
    kill_deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(args.stop_timeout_s));
    signal_all(SIGTERM);
  };

  while (running() > 0) {
    // Reap everything that ended; among failures found together, one killed by a signal is the
    // likelier root cause (the others often fail because of it).
    std::vector<Rank*> failed_now;
    for (;;) {
      int status = 0;
      pid_t pid = ::waitpid(-1, &status, WNOHANG);
      if (pid <= 0) break;
      for (auto& r : ranks) {
        if (r.pid != pid) continue;
        r.running = false;
        r.status = status;
        if (failed(status) && !stopping && !root_cause) failed_now.push_back(&r);
      }
    }
    if (!failed_now.empty()) {
      root_cause = failed_now[0];
      for (Rank* r : failed_now) {
        if (WIFSIGNALED(r->status)) {
          root_cause = r;
          break;
        }
      }
      begin_stop();
    }
    if (running() == 0) break;
    if (stopping && Clock::now() >= kill_deadline) {
      signal_all(SIGKILL);
      kill_deadline = Clock::now() + std::chrono::hours(24);
    }
    timespec wait_for{0, 200 * 1000 * 1000};
    siginfo_t info;
    int sig = sigtimedwait(&watched, &info, &wait_for);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
      if (interrupted_by) {
        signal_all(SIGKILL);  // a second signal: no more grace
      } else {
        interrupted_by = sig;
        message("received " + signal_name(sig) + ", forwarding it to the ranks");
        signal_all(sig);
        stopping = true;
        kill_deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(args.stop_timeout_s));
      }
    }
  }
  sigprocmask(SIG_SETMASK, &previous, nullptr);

  if (root_cause) {
    message("rank " + std::to_string(root_cause->global_rank) + " (local rank " +
            std::to_string(root_cause->local_rank) + ", pid " + std::to_string(root_cause->pid) +
            ") " + describe_status(root_cause->status) + "; stopped the other ranks");
    return exit_code_for(root_cause->status);
  }
  if (interrupted_by) return 128 + interrupted_by;
  return 0;
}

}  // namespace ember_run
