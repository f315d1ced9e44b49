#pragma once
// ember-run's command line: torchrun's flags (dashes or underscores), then the program and its
// arguments.
#include <string>
#include <vector>

namespace ember_run {

struct Args {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  bool standalone = false;     // one node, a free port
  double stop_timeout_s = 10;  // SIGTERM -> SIGKILL grace when stopping ranks
  std::vector<std::string> command;
};

// Throws std::invalid_argument with a message for the user on bad input; `help` is set for
// -h/--help.
Args parse_args(const std::vector<std::string>& argv, bool* help);
std::string usage();

// What each rank executes: `command` as it is, or, for a Python script (PROGRAM ending in .py),
// the interpreter first: $EMBER_PYTHON when set and not empty, otherwise EMBER_RUN_PYTHON (the
// Python the bindings were built for; "python3", found on PATH, when the build has none).
std::vector<std::string> rank_command(const std::vector<std::string>& command);

}  // namespace ember_run
