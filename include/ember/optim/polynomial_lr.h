#pragma once
// PolynomialLR: lr = base_lr * (1 - epoch / total_iters)^power up to total_iters, then constant;
// PyTorch's chainable form multiplies the current lr by the ratio of consecutive values
// (torch.optim.lr_scheduler.PolynomialLR), counted as LRScheduler counts.
#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

class EMBER_API PolynomialLR : public LRScheduler {
 public:
  PolynomialLR(Optimizer& optimizer, int64_t total_iters = 5, double power = 1.0);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  int64_t total_iters_;
  double power_;
};

}  // namespace ember::optim
