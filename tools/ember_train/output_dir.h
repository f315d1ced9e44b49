#pragma once
// --out: the output directory is created and proven writable before anything slow happens
// (loading data, building the model), so a bad --out fails at once and names the flag.
#include <string>

namespace ember::train {

// Creates `dir` (and its parents) and checks that a file can be created in it. Throws
// ember::ValueError "--out DIR: ..." with the reason otherwise.
void prepare_output_dir(const std::string& dir);

}  // namespace ember::train
