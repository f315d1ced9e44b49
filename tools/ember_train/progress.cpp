#include "ember_train/progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ember::train {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto total = static_cast<int64_t>(std::llround(seconds));
  const int64_t h = total / 3600, m = total / 60 % 60, s = total % 60;
  char buf[48];
  if (h > 0) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(h),
                  static_cast<long long>(m), static_cast<long long>(s));
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(m),
                  static_cast<long long>(s));
  }
  return buf;
}

namespace {
double eta_seconds(const ProgressState& s) {
  if (s.batch <= 0) return -1;
  return s.elapsed_seconds / static_cast<double>(s.batch) *
         static_cast<double>(s.batches - s.batch);
}
}  // namespace

std::string progress_bar_line(const ProgressState& s, int bar_width) {
  const double frac =
      s.batches > 0 ? std::clamp(static_cast<double>(s.batch) / s.batches, 0.0, 1.0) : 0.0;
  const int filled = static_cast<int>(frac * bar_width);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(static_cast<size_t>(bar_width), '.');
  const int digits = static_cast<int>(std::to_string(s.batches).size());
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "epoch %lld/%lld [%s] %*lld/%lld  loss %.4f  %7.0f samples/s  ETA %s",
                static_cast<long long>(s.epoch), static_cast<long long>(s.epochs), bar.c_str(),
                digits, static_cast<long long>(s.batch), static_cast<long long>(s.batches), s.loss,
                s.samples_per_second, format_duration(eta_seconds(s)).c_str());
  return buf;
}

std::string progress_plain_line(const ProgressState& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "epoch %lld/%lld  %lld/%lld batches  loss %.4f  %.0f samples/s  ETA %s",
                static_cast<long long>(s.epoch), static_cast<long long>(s.epochs),
                static_cast<long long>(s.batch), static_cast<long long>(s.batches), s.loss,
                s.samples_per_second, format_duration(eta_seconds(s)).c_str());
  return buf;
}

EpochProgress::EpochProgress(std::ostream& out, bool terminal, int64_t epoch, int64_t epochs,
                             int64_t batches)
    : out_(out), terminal_(terminal), start_(std::chrono::steady_clock::now()), last_draw_(start_) {
  state_.epoch = epoch;
  state_.epochs = epochs;
  state_.batches = batches;
}

double EpochProgress::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool EpochProgress::due(int64_t batch) const {
  if (batch >= state_.batches) return true;
  if (terminal_) {
    // About ten redraws a second.
    return std::chrono::steady_clock::now() - last_draw_ >= std::chrono::milliseconds(100) ||
           batch == 1;
  }
  // Plain lines at each tenth of the epoch.
  return batch * 10 >= next_plain_ * state_.batches;
}

void EpochProgress::update(int64_t batch, int64_t samples, double mean_loss) {
  state_.batch = batch;
  state_.loss = mean_loss;
  state_.elapsed_seconds = elapsed_seconds();
  state_.samples_per_second =
      state_.elapsed_seconds > 0 ? static_cast<double>(samples) / state_.elapsed_seconds : 0;
  last_draw_ = std::chrono::steady_clock::now();
  if (terminal_) {
    std::string line = progress_bar_line(state_);
    const size_t width = line.size();
    if (width < drawn_width_) line.append(drawn_width_ - width, ' ');
    drawn_width_ = width;
    out_ << '\r' << line << std::flush;
  } else {
    while (batch * 10 >= next_plain_ * state_.batches) ++next_plain_;
    out_ << progress_plain_line(state_) << '\n' << std::flush;
  }
}

void EpochProgress::finish() {
  if (terminal_ && drawn_width_ > 0) {
    out_ << '\r' << std::string(drawn_width_, ' ') << '\r' << std::flush;
    drawn_width_ = 0;
  }
}

namespace {
double step_eta(const StepProgressState& s) {
  if (s.step <= 0) return -1;
  return s.elapsed_seconds / static_cast<double>(s.step) * static_cast<double>(s.steps - s.step);
}
}  // namespace

std::string step_bar_line(const StepProgressState& s, int bar_width) {
  const double frac =
      s.steps > 0 ? std::clamp(static_cast<double>(s.step) / s.steps, 0.0, 1.0) : 0.0;
  const int filled = static_cast<int>(frac * bar_width);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(static_cast<size_t>(bar_width), '.');
  const int digits = static_cast<int>(std::to_string(s.steps).size());
  char buf[256];
  std::snprintf(buf, sizeof buf, "step %*lld/%lld [%s]  loss %.4f  %7.0f tokens/s  ETA %s", digits,
                static_cast<long long>(s.step), static_cast<long long>(s.steps), bar.c_str(),
                s.loss, s.tokens_per_second, format_duration(step_eta(s)).c_str());
  return buf;
}

std::string step_plain_line(const StepProgressState& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "step %lld/%lld  loss %.4f  %.0f tokens/s  ETA %s",
                static_cast<long long>(s.step), static_cast<long long>(s.steps), s.loss,
                s.tokens_per_second, format_duration(step_eta(s)).c_str());
  return buf;
}

StepProgress::StepProgress(std::ostream& out, bool terminal, int64_t steps)
    : out_(out), terminal_(terminal), last_draw_(std::chrono::steady_clock::now()) {
  state_.steps = steps;
}

bool StepProgress::due(int64_t step) const {
  if (step >= state_.steps) return true;
  if (terminal_) {
    return std::chrono::steady_clock::now() - last_draw_ >= std::chrono::milliseconds(100) ||
           step == 1;
  }
  return step * 10 >= next_plain_ * state_.steps;
}

void StepProgress::update(int64_t step, double mean_loss, double tokens_per_second,
                          double elapsed_seconds) {
  state_.step = step;
  state_.loss = mean_loss;
  state_.tokens_per_second = tokens_per_second;
  state_.elapsed_seconds = elapsed_seconds;
  last_draw_ = std::chrono::steady_clock::now();
  if (terminal_) {
    std::string line = step_bar_line(state_);
    const size_t width = line.size();
    if (width < drawn_width_) line.append(drawn_width_ - width, ' ');
    drawn_width_ = width;
    out_ << '\r' << line << std::flush;
  } else {
    while (step * 10 >= next_plain_ * state_.steps) ++next_plain_;
    out_ << step_plain_line(state_) << '\n' << std::flush;
  }
}

void StepProgress::printed_line(int64_t step) {
  while (step * 10 >= next_plain_ * state_.steps) ++next_plain_;
}

void StepProgress::clear() {
  if (terminal_ && drawn_width_ > 0) {
    out_ << '\r' << std::string(drawn_width_, ' ') << '\r' << std::flush;
    drawn_width_ = 0;
  }
}

}  // namespace ember::train
