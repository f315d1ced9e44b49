#pragma once
// MultiStepLR: lr *= gamma at each milestone epoch (a milestone listed k times: gamma^k), from the
// group's current lr (torch.optim.lr_scheduler.MultiStepLR), counted as LRScheduler counts.
#include <map>

#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

class EMBER_API MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, const std::vector<int64_t>& milestones, double gamma = 0.1);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  std::map<int64_t, int64_t> milestone_counts_;
  double gamma_;
};

}  // namespace ember::optim
