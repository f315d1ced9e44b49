#pragma once
// ReduceLROnPlateauScheduler (libtorch 2.x's name; ReduceLROnPlateau, PyTorch's, is the same
// class): step(metric) once per epoch; when the metric has not improved (by threshold, relative
// or absolute) for more than `patience` epochs, each lr becomes max(lr * factor, min_lr) (unless
// that changes it by eps or less), and `cooldown` epochs pass before bad epochs count again
// (torch.optim.lr_scheduler.ReduceLROnPlateau). Not an LRScheduler: it has no epoch schedule,
// and its constructor changes nothing in PyTorch either.
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API ReduceLROnPlateauScheduler {
 public:
  enum SchedulerMode { min, max };
  enum ThresholdMode { rel, abs };
  // min_lr: one value for all groups (empty: 0) or one per group. Throws ValueError for
  // factor >= 1 or a min_lr list of the wrong length (PyTorch's texts).
  ReduceLROnPlateauScheduler(Optimizer& optimizer, SchedulerMode mode = min, double factor = 0.1,
                             int64_t patience = 10, double threshold = 1e-4,
                             ThresholdMode threshold_mode = rel, int64_t cooldown = 0,
                             const std::vector<double>& min_lr = {}, double eps = 1e-8);
  void step(double metric);
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  double best() const { return best_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  int64_t cooldown_counter() const { return cooldown_counter_; }
  int64_t last_epoch() const { return last_epoch_; }

 private:
  bool is_better(double a) const;

  Optimizer& optimizer_;
  SchedulerMode mode_;
  double factor_;
  int64_t patience_;
  double threshold_;
  ThresholdMode threshold_mode_;
  int64_t cooldown_;
  std::vector<double> min_lrs_;
  double eps_;
  double best_;
  int64_t num_bad_epochs_ = 0;
  int64_t cooldown_counter_ = 0;
  int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

using ReduceLROnPlateau = ReduceLROnPlateauScheduler;

}  // namespace ember::optim
