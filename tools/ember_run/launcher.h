#pragma once
// Starts the ranks of one node and supervises them: forwards signals, and when one rank fails,
// stops the others and reports which rank failed and how.
#include <string>

#include "args.h"

namespace ember_run {

// Runs to completion; returns ember-run's exit status (0 when every rank exited with 0).
// Messages go to stderr, prefixed with "ember-run: ".
int launch(const Args& args);

// "exited with status 3", "was killed by signal 9 (SIGKILL)".
std::string describe_status(int wait_status);

}  // namespace ember_run
