#pragma once
// MultiplicativeLR: lr *= lr_lambda(epoch) at every epoch after the first, from the group's
// current lr (torch.optim.lr_scheduler.MultiplicativeLR), counted as LRScheduler counts.
#include "ember/optim/lambda_lr.h"

namespace ember::optim {

class EMBER_API MultiplicativeLR : public LRScheduler {
 public:
  MultiplicativeLR(Optimizer& optimizer, LRLambda lr_lambda);
  // Throws ValueError unless there is one function per group.
  MultiplicativeLR(Optimizer& optimizer, std::vector<LRLambda> lr_lambdas);

 protected:
  std::vector<double> get_lrs() override;

 private:
  std::vector<LRLambda> lr_lambdas_;
};

}  // namespace ember::optim
