#pragma once
// LinearLR: the factor on base_lr moves linearly from start_factor (epoch 0) to end_factor (epoch
// total_iters), then stays; PyTorch's chainable form multiplies the current lr by the ratio of
// consecutive factors (torch.optim.lr_scheduler.LinearLR), counted as LRScheduler counts. With
// SequentialLR it is the usual warm-up.
#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

class EMBER_API LinearLR : public LRScheduler {
 public:
  // Throws ValueError unless both factors are in [0, 1].
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  double start_factor_;
  double end_factor_;
  int64_t total_iters_;
};

}  // namespace ember::optim
