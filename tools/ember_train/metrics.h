#pragma once
// Per-epoch metrics of a run (per-evaluation for the GPT job) and the metrics.csv writers.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::train {

struct EpochMetrics {
  int64_t epoch = 0;  // 1-based
  double train_loss = 0;
  double test_loss = 0;
  double test_accuracy = 0;  // fraction in [0, 1]
  double seconds = 0;        // wall time of the epoch (training and test pass)
};

// "epoch,train_loss,test_loss,test_accuracy,seconds" and one row per epoch.
std::string metrics_csv(const std::vector<EpochMetrics>& rows);

// The GPT job's metrics at each evaluation (every --eval-interval steps and after the last).
struct StepMetrics {
  int64_t step = 0;              // training steps done
  double train_loss = 0;         // mean training loss of the steps since the previous row
  double val_loss = 0;           // mean loss on the fixed validation batches
  double tokens_per_second = 0;  // training tokens per second over those steps
  double seconds = 0;            // wall time since training started
};

// "step,train_loss,val_loss,tokens_per_second,seconds" and one row per evaluation.
std::string step_metrics_csv(const std::vector<StepMetrics>& rows);

// Writes `contents` to a temporary file next to `path` and renames it over `path`, so a reader
// never sees half a file. Throws ember::Error naming the path and the system error.
void write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace ember::train
