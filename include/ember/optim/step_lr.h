#pragma once
// StepLR: multiplies each group's lr by gamma every step_size epochs, so at epoch e the lr is
// base_lr * gamma^(e / step_size); after n calls of step() that is epoch n - 1, as libtorch's
// torch::optim::StepLR (LRScheduler).
#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

class EMBER_API StepLR : public LRScheduler {
 public:
  // Throws ValueError for step_size < 1.
  StepLR(Optimizer& optimizer, unsigned step_size, double gamma = 0.1);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  int64_t step_size_;
  double gamma_;
};

}  // namespace ember::optim
