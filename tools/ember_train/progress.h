#pragma once
// Per-epoch progress: on a terminal a bar redrawn in place (batches, loss, samples/s, ETA); in a
// log (stdout not a terminal) a plain line every tenth of the epoch.
#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace ember::train {

// "0:07", "12:34", "1:02:03"; "?" for a negative or non-finite value.
std::string format_duration(double seconds);

struct ProgressState {
  int64_t epoch = 1, epochs = 1;
  int64_t batch = 0, batches = 0;  // batches done / per epoch
  double loss = 0;                 // running mean training loss of the epoch
  double samples_per_second = 0;
  double elapsed_seconds = 0;
};

// The bar line, e.g.
// "epoch 2/10 [########........]  469/938  loss 0.4123   52310 samples/s  ETA 0:04".
std::string progress_bar_line(const ProgressState& s, int bar_width = 24);
// The plain log line, e.g. "epoch 2/10  469/938 batches  loss 0.4123  52310 samples/s  ETA 0:04".
std::string progress_plain_line(const ProgressState& s);

class EpochProgress {
 public:
  EpochProgress(std::ostream& out, bool terminal, int64_t epoch, int64_t epochs, int64_t batches);
  // True when update() would print now: callers read the loss (a device sync) only then.
  bool due(int64_t batch) const;
  // After `batch` batches (1-based) and `samples` samples of the epoch, with the running loss.
  void update(int64_t batch, int64_t samples, double mean_loss);
  // Clears the bar on a terminal so the epoch summary takes its line.
  void finish();
  double elapsed_seconds() const;

 private:
  std::ostream& out_;
  bool terminal_;
  ProgressState state_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  int64_t next_plain_ = 1;
  size_t drawn_width_ = 0;
};

// The GPT job's progress over its training steps, in the same two styles:
// "step 300/2000 [###.....]  loss 1.9876  12345 tokens/s  ETA 1:23" redrawn on a terminal, and
// "step 300/2000  loss 1.9876  12345 tokens/s  ETA 1:23" every tenth of the run in a log.
struct StepProgressState {
  int64_t step = 0, steps = 0;
  double loss = 0;  // running mean training loss since the last evaluation
  double tokens_per_second = 0;
  double elapsed_seconds = 0;  // since training started, evaluations included
};
std::string step_bar_line(const StepProgressState& s, int bar_width = 24);
std::string step_plain_line(const StepProgressState& s);

class StepProgress {
 public:
  StepProgress(std::ostream& out, bool terminal, int64_t steps);
  // True when update() would print now: callers read the loss (a device sync) only then.
  bool due(int64_t step) const;
  void update(int64_t step, double mean_loss, double tokens_per_second, double elapsed_seconds);
  // Clears the bar on a terminal so that another line (an evaluation) takes its place.
  void clear();
  // Another line was printed after `step` (an evaluation): in a log, the next plain line is due
  // at the next tenth after it, not at once.
  void printed_line(int64_t step);

 private:
  std::ostream& out_;
  bool terminal_;
  StepProgressState state_;
  std::chrono::steady_clock::time_point last_draw_;
  int64_t next_plain_ = 1;
  size_t drawn_width_ = 0;
};

}  // namespace ember::train
