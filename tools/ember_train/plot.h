#pragma once
// metrics.svg: two panels, loss (train and test) and test accuracy per epoch (the GPT job: loss
// and tokens/s per step), each with axes, ticks, grid lines and a legend. Plain SVG 1.1, so any
// browser or image viewer opens it.
#include <string>
#include <vector>

#include "ember_train/metrics.h"

namespace ember::train {

// "Nice" tick values (steps of 1, 2 or 5 times a power of ten) covering [lo, hi] with about
// `target` ticks; the first tick is <= lo and the last >= hi. lo == hi gets a small range around
// the value.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);

// Integer epoch ticks between 1 and `epochs` (every epoch up to 10, then a nice step).
std::vector<int64_t> epoch_ticks(int64_t epochs);

// The whole SVG document. `title` is XML-escaped.
std::string metrics_svg(const std::vector<EpochMetrics>& rows, const std::string& title);

// The GPT job's metrics.svg: loss (train and validation) and training tokens/s per step.
std::string step_metrics_svg(const std::vector<StepMetrics>& rows, const std::string& title);

}  // namespace ember::train
