// ember-run: torchrun for Ember programs (see `ember-run --help` and docs/distributed.md).
#include <cstdio>
#include <stdexcept>

#include "args.h"
#include "launcher.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  bool help = false;
  ember_run::Args parsed;
  try {
    parsed = ember_run::parse_args(args, &help);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "ember-run: %s\n\n%s", e.what(), ember_run::usage().c_str());
    return 2;
  }
  if (help) {
    std::printf("%s", ember_run::usage().c_str());
    return 0;
  }
  return ember_run::launch(parsed);
}
