#pragma once
// LambdaLR: lr = base_lr * lr_lambda(epoch), one function for all groups or one per group
// (torch.optim.lr_scheduler.LambdaLR), at epoch n - 1 after n calls of step() (LRScheduler).
#include <functional>

#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

// The multiplicative factor for an epoch.
using LRLambda = std::function<double(int64_t)>;

class EMBER_API LambdaLR : public LRScheduler {
 public:
  LambdaLR(Optimizer& optimizer, LRLambda lr_lambda);
  // Throws ValueError unless there is one function per group.
  LambdaLR(Optimizer& optimizer, std::vector<LRLambda> lr_lambdas);

 protected:
  std::vector<double> get_lrs() override;

 private:
  std::vector<LRLambda> lr_lambdas_;
};

namespace detail {
// One function per group (a single one repeated), or ValueError with PyTorch's text.
std::vector<LRLambda> lambdas_per_group(std::vector<LRLambda> lambdas, size_t groups);
}  // namespace detail

}  // namespace ember::optim
