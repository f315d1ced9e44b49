#pragma once
// The GPT job of ember-train (--model gpt): the corpus, the model, AdamW with a warm-up and
// cosine schedule, gradient clipping, the validation loss every --eval-interval steps, the output
// files (model.safetensors, metrics.csv, metrics.svg rewritten at each evaluation, sample.txt at
// the end) and a text sample printed at the end.
#include <ostream>
#include <vector>

#include "ember_train/args.h"
#include "ember_train/metrics.h"

namespace ember::train {

// Runs the whole job, printing to `out` (a progress bar when `terminal`, plain lines otherwise).
// Throws ember::Error for a bad device, a missing or too short corpus, an unwritable output
// directory, or a diverged run (unless --allow-nonfinite).
std::vector<StepMetrics> run_gpt_training(const TrainArgs& args, std::ostream& out, bool terminal);

}  // namespace ember::train
