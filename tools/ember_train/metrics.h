#pragma once
// Per-epoch metrics of a run and the metrics.csv writer.
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

// Writes `contents` to a temporary file next to `path` and renames it over `path`, so a reader
// never sees half a file. Throws ember::Error naming the path and the system error.
void write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace ember::train
