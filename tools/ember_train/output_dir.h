#pragma once
// Every path ember-train writes is checked before anything slow happens (loading data, building
// the model): the --out directory is created and proven writable, and so are the directories of
// the files it writes (model, metrics, plot, --profile's trace), so that a bad path fails at once
// and names its flag instead of failing after an epoch of training.
#include <string>

namespace ember::train {

// Creates `dir` (and its parents) and checks that a file can be created in it. Throws
// ember::ValueError "--out DIR: ..." with the reason otherwise.
void prepare_output_dir(const std::string& dir);

// Checks that the file `path`, given by `flag` (or written into its directory), can be written
// (atomically: a temporary next to it, renamed over it): its directory exists and accepts a new
// file, and `path` is not a directory. Throws ember::ValueError "FLAG PATH: ..." otherwise.
void check_output_file(const std::string& flag, const std::string& path);

}  // namespace ember::train
