// parse_args through CLI11 (tools/cli/app.h): torchrun's flags, each also spelled with
// underscores (a second long name, left out of --help), then the program and its arguments as
// they are.
#include "args.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "cli/app.h"
#include "cli/checks.h"

namespace ember_run {
namespace {

// "--nproc-per-node,--nproc_per_node": CLI11's names of one option, torchrun's two spellings.
std::string spellings(const std::string& flag) {
  std::string underscores = flag;
  std::replace(underscores.begin() + 2, underscores.end(), '-', '_');
  return underscores == flag ? flag : flag + "," + underscores;
}

std::unique_ptr<CLI::App> make_app(Args& a) {
  using ember::cli::integer_in;
  auto app = ember::cli::new_app(
      "ember-run",
      "Starts N copies of PROGRAM on this node as ranks of a process group, as torchrun does:\n"
      "each gets MASTER_ADDR, MASTER_PORT, WORLD_SIZE (M*N), RANK (R*N + local rank),\n"
      "LOCAL_RANK, LOCAL_WORLD_SIZE and GROUP_RANK (R), and OMP_NUM_THREADS=1 unless set.\n"
      "Signals (INT, TERM, HUP) are forwarded to the ranks. When a rank fails, the others are\n"
      "stopped (SIGTERM, then SIGKILL after --stop-timeout, default 10 s) and ember-run exits\n"
      "with a non-zero status, naming the rank and how it ended. Flags may also be spelled\n"
      "with underscores (--nproc_per_node).\n"
      "A PROGRAM ending in .py is a Python script: each rank runs it with $EMBER_PYTHON when\n"
      "set, otherwise with the Python the ember package was built for (" EMBER_RUN_PYTHON
      ");\n"
      "PYTHONPATH and the rest of the environment are passed on.",
      "[OPTIONS] [--] PROGRAM [ARGS...]");
  app->add_option(spellings("--nproc-per-node"), a.nproc_per_node,
                  "processes (ranks) on this node (default 1)")
      ->type_name("N")
      ->transform(integer_in<int>(1, 4096));
  app->add_option(spellings("--nnodes"), a.nnodes, "nodes taking part (default 1)")
      ->type_name("M")
      ->transform(integer_in<int>(1, 1 << 20));
  app->add_option(spellings("--node-rank"), a.node_rank, "this node's index, 0..M-1 (default 0)")
      ->type_name("R")
      ->transform(integer_in<int>(0, 1 << 20));
  app->add_option(spellings("--master-addr"), a.master_addr,
                  "address of rank 0's store (default 127.0.0.1)")
      ->type_name("ADDR")
      ->transform(ember::cli::not_empty("an address"));
  app->add_option(spellings("--master-port"), a.master_port,
                  "port of rank 0's store (default 29500)")
      ->type_name("PORT")
      ->transform(integer_in<int>(1, 65535));
  app->add_flag(spellings("--standalone"), a.standalone, "one node on 127.0.0.1 with a free port");
  app->add_option(spellings("--stop-timeout"), a.stop_timeout_s,
                  "grace between SIGTERM and SIGKILL when stopping ranks\n(default 10)")
      ->type_name("SECONDS")
      ->transform(ember::cli::non_negative_number());
  // The first argument that is not an option, and everything after it (or after "--").
  app->add_option("PROGRAM", a.command, "the program each rank runs, and its arguments")
      ->option_text("[ARGS...]");
  app->positionals_at_end();
  return app;
}

}  // namespace

std::string usage() {
  Args unused;
  return make_app(unused)->help();
}

Args parse_args(const std::vector<std::string>& argv, bool* help) {
  Args a;
  *help = false;
  auto app = make_app(a);
  try {
    ember::cli::parse(*app, argv);
  } catch (const CLI::CallForHelp&) {
    *help = true;
    return Args{};
  } catch (const CLI::ParseError& e) {
    throw std::invalid_argument(e.what());
  }
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

std::vector<std::string> rank_command(const std::vector<std::string>& command) {
  const std::string& program = command.at(0);
  const std::string suffix = ".py";
  if (program.size() <= suffix.size() ||
      program.compare(program.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return command;
  }
  const char* chosen = std::getenv("EMBER_PYTHON");
  std::vector<std::string> out{chosen && *chosen ? chosen : EMBER_RUN_PYTHON};
  out.insert(out.end(), command.begin(), command.end());
  return out;
}

}  // namespace ember_run
