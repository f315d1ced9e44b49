// parse_args: --flag value, --flag=value, dashes or underscores (torchrun accepts both).
#include "args.h"

#include <stdexcept>

namespace ember_run {
namespace {

int to_int(const std::string& flag, const std::string& v, int lo, int hi) {
  size_t used = 0;
  long x = 0;
  try {
    x = std::stol(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || v.empty() || x < lo || x > hi) {
    throw std::invalid_argument(flag + " expects an integer in [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "], got '" + v + "'");
  }
  return static_cast<int>(x);
}

double to_double(const std::string& flag, const std::string& v) {
  size_t used = 0;
  double x = 0;
  try {
    x = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || v.empty() || x < 0) {
    throw std::invalid_argument(flag + " expects a non-negative number of seconds, got '" + v +
                                "'");
  }
  return x;
}

}  // namespace

std::string usage() {
  return "usage: ember-run [--nproc-per-node N] [--nnodes M] [--node-rank R]\n"
         "                 [--master-addr ADDR] [--master-port PORT] [--standalone]\n"
         "                 [--stop-timeout SECONDS] [--] PROGRAM [ARGS...]\n"
         "\n"
         "Starts N copies of PROGRAM on this node as ranks of a process group, as torchrun does:\n"
         "each gets MASTER_ADDR, MASTER_PORT, WORLD_SIZE (M*N), RANK (R*N + local rank),\n"
         "LOCAL_RANK, LOCAL_WORLD_SIZE and GROUP_RANK (R), and OMP_NUM_THREADS=1 unless set.\n"
         "Signals (INT, TERM, HUP) are forwarded to the ranks. When a rank fails, the others are\n"
         "stopped (SIGTERM, then SIGKILL after --stop-timeout, default 10 s) and ember-run exits\n"
         "with a non-zero status, naming the rank and how it ended.\n"
         "\n"
         "  --nproc-per-node N      processes (ranks) on this node (default 1)\n"
         "  --nnodes M              nodes taking part (default 1)\n"
         "  --node-rank R           this node's index, 0..M-1 (default 0)\n"
         "  --master-addr ADDR      address of rank 0's store (default 127.0.0.1)\n"
         "  --master-port PORT      port of rank 0's store (default 29500)\n"
         "  --standalone            one node on 127.0.0.1 with a free port\n"
         "  --stop-timeout SECONDS  grace between SIGTERM and SIGKILL when stopping ranks\n"
         "                          (default 10)\n"
         "  -h, --help              show this message\n";
}

Args parse_args(const std::vector<std::string>& argv, bool* help) {
  Args a;
  *help = false;
  size_t i = 0;
  for (; i < argv.size(); ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.rfind("-", 0) != 0) break;  // the program
    if (arg == "-h" || arg == "--help") {
      *help = true;
      return a;
    }
    std::string flag = arg, value;
    bool has_value = false;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    for (char& c : flag) {
      if (c == '_') c = '-';
    }
    auto next = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argv.size()) throw std::invalid_argument(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--nproc-per-node") {
      a.nproc_per_node = to_int(flag, next(), 1, 4096);
    } else if (flag == "--nnodes") {
      a.nnodes = to_int(flag, next(), 1, 1 << 20);
    } else if (flag == "--node-rank") {
      a.node_rank = to_int(flag, next(), 0, 1 << 20);
    } else if (flag == "--master-addr") {
      a.master_addr = next();
      if (a.master_addr.empty()) throw std::invalid_argument("--master-addr is empty");
    } else if (flag == "--master-port") {
      a.master_port = to_int(flag, next(), 1, 65535);
    } else if (flag == "--standalone") {
      if (has_value) throw std::invalid_argument("--standalone takes no value");
      a.standalone = true;
    } else if (flag == "--stop-timeout") {
      a.stop_timeout_s = to_double(flag, next());
    } else {
      throw std::invalid_argument("unknown option '" + arg + "'");
    }
  }
  a.command.assign(argv.begin() + static_cast<std::ptrdiff_t>(i), argv.end());
  if (a.command.empty()) throw std::invalid_argument("no program to run");
  if (a.node_rank >= a.nnodes) {
    throw std::invalid_argument("--node-rank " + std::to_string(a.node_rank) +
                                " is out of range for --nnodes " + std::to_string(a.nnodes) +
                                " (node ranks are 0.." + std::to_string(a.nnodes - 1) + ")");
  }
  if (a.standalone && a.nnodes != 1) {
    throw std::invalid_argument("--standalone runs one node; it cannot be used with --nnodes " +
                                std::to_string(a.nnodes));
  }
  return a;
}

}  // namespace ember_run
