#pragma once
// CosineAnnealingLR (SGDR without restarts): lr follows
//   eta_min + (base_lr - eta_min) * (1 + cos(pi * e / T_max)) / 2
// through PyTorch's recursive form, so external lr changes carry through as they do there, and
// the schedule keeps oscillating past T_max (torch.optim.lr_scheduler.CosineAnnealingLR), at
// epoch n - 1 after n calls of step() (libtorch's step count, see LRScheduler).
#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

class EMBER_API CosineAnnealingLR : public LRScheduler {
 public:
  // Throws ValueError for T_max < 1.
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0.0);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  int64_t T_max_;
  double eta_min_;
};

}  // namespace ember::optim
