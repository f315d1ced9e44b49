#pragma once
// ExponentialLR: lr *= gamma every epoch after the first (torch.optim.lr_scheduler.ExponentialLR),
// counted as LRScheduler counts.
#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

class EMBER_API ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  double gamma_;
};

}  // namespace ember::optim
