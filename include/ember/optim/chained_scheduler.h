#pragma once
// ChainedScheduler: step() steps every scheduler in order, so their chainable changes compound
// (torch.optim.lr_scheduler.ChainedScheduler); e.g. ConstantLR and ExponentialLR together.
#include <memory>

#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

class EMBER_API ChainedScheduler : public LRScheduler {
 public:
  // Throws ValueError for no schedulers, or schedulers of different optimizers (PyTorch's text).
  explicit ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers);
  void step() override;

 protected:
  // Unused: step() steps the chained schedulers.
  std::vector<double> get_lrs() override { return get_current_lrs(); }

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
};

}  // namespace ember::optim
