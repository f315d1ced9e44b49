#pragma once
// CosineAnnealingWarmRestarts (SGDR): lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * T_cur /
// T_i)) / 2, where T_cur counts the epochs since the last restart and T_i, the length of the
// current period, starts at T_0 and is multiplied by T_mult at each restart
// (torch.optim.lr_scheduler.CosineAnnealingWarmRestarts), counted as LRScheduler counts.
// step_to() also takes a fractional epoch, for stepping once per batch.
#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

class EMBER_API CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  // Throws ValueError unless T_0 >= 1 and T_mult >= 1.
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1,
                              double eta_min = 0.0);
  void step() override;
  void step_to(int64_t epoch) override { step_to(static_cast<double>(epoch)); }
  // Throws ValueError for a negative epoch.
  void step_to(double epoch);
  double T_cur() const { return T_cur_; }
  int64_t T_i() const { return T_i_; }

 protected:
  std::vector<double> get_lrs() override;

 private:
  int64_t T_0_;
  int64_t T_i_;
  int64_t T_mult_;
  double eta_min_;
  double T_cur_ = -1;
};

}  // namespace ember::optim
