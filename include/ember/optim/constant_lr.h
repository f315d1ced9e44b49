#pragma once
// ConstantLR: lr = base_lr * factor for epochs [0, total_iters), then base_lr; in PyTorch's
// chainable form (lr * factor at epoch 0, lr / factor at total_iters), so other changes to the lr
// carry through (torch.optim.lr_scheduler.ConstantLR), counted as LRScheduler counts.
#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

class EMBER_API ConstantLR : public LRScheduler {
 public:
  // Throws ValueError unless 0 <= factor <= 1.
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  double factor_;
  int64_t total_iters_;
};

}  // namespace ember::optim
