#pragma once
// SequentialLR: schedulers[0] sets the lrs until milestones[0], schedulers[1] from there (started
// at its epoch 0 with step_to(0), the closed form) until milestones[1], ...
// (torch.optim.lr_scheduler.SequentialLR); e.g. a LinearLR warm-up, then CosineAnnealingLR.
// Counted as LRScheduler counts: the first step() starts schedulers[0] from the initial lrs.
#include <memory>

#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

class EMBER_API SequentialLR : public LRScheduler {
 public:
  // Throws ValueError (PyTorch's texts) unless every scheduler drives `optimizer`, there is one
  // milestone fewer than schedulers, and no scheduler has been stepped yet.
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones);
  void step() override;

 protected:
  // Unused: step() hands each epoch to the scheduler of its interval.
  std::vector<double> get_lrs() override { return get_current_lrs(); }

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

}  // namespace ember::optim
