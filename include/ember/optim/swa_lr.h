#pragma once
// swa_utils::SWALR: anneals each group's lr from its current value to swa_lr over anneal_epochs
// ("cos" or "linear"), then holds it (torch.optim.swa_utils.SWALR), counted as LRScheduler
// counts. PyTorch's SWALR reads its own step count; inside a SequentialLR, PyTorch's count also
// includes the wrapped scheduler's constructor step, so there Ember's SWALR anneals one step later.
#include <string>

#include "ember/optim/lr_scheduler.h"

namespace ember::optim::swa_utils {

class EMBER_API SWALR : public LRScheduler {
 public:
  // swa_lr: one value for all groups or one per group. Throws ValueError (PyTorch's texts) for an
  // unknown anneal_strategy, anneal_epochs < 0, or a swa_lr list of the wrong length.
  SWALR(Optimizer& optimizer, std::vector<double> swa_lr, int64_t anneal_epochs = 10,
        const std::string& anneal_strategy = "cos");
  const std::vector<double>& swa_lrs() const { return swa_lrs_; }

 protected:
  std::vector<double> get_lrs() override;

 private:
  double anneal(double t) const;

  std::vector<double> swa_lrs_;
  int64_t anneal_epochs_;
  bool cosine_;
};

}  // namespace ember::optim::swa_utils
