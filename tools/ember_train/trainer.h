#pragma once
// The training run of ember-train: data, model, Adam, the epochs with their test passes, and
// the output files (model.safetensors, metrics.csv, metrics.svg, rewritten after every epoch).
#include <ostream>
#include <vector>

#include "ember_train/args.h"
#include "ember_train/metrics.h"

namespace ember::train {

// Runs the whole job, printing to `out` (a progress bar when `terminal`, plain lines otherwise).
// Throws ember::Error for a bad device, a missing dataset or an unwritable output directory.
// --model gpt runs run_gpt_training (gpt_trainer.h) and returns no rows.
std::vector<EpochMetrics> run_training(const TrainArgs& args, std::ostream& out, bool terminal);

}  // namespace ember::train
