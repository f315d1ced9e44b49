// SWALR: torch.optim.swa_utils.SWALR's get_lr, which recovers the lr the annealing started from
// out of the current lr, so it also follows lrs changed by hand.
#include "ember/optim/swa_lr.h"

#include <algorithm>
#include <cmath>

namespace ember::optim::swa_utils {

namespace {

std::vector<double> checked_swa_lrs(const std::vector<double>& swa_lr, size_t groups) {
  if (swa_lr.size() == 1) return std::vector<double>(groups, swa_lr[0]);
  EMBER_CHECK(swa_lr.size() == groups, ValueError,
              "swa_lr must have the same length as optimizer.param_groups: swa_lr has ",
              swa_lr.size(), ", optimizer.param_groups has ", groups);
  return swa_lr;
}

}  // namespace

SWALR::SWALR(Optimizer& optimizer, std::vector<double> swa_lr, int64_t anneal_epochs,
             const std::string& anneal_strategy)
    : LRScheduler(optimizer),
      swa_lrs_(checked_swa_lrs(swa_lr, base_lrs_.size())),
      anneal_epochs_(anneal_epochs),
      cosine_(anneal_strategy == "cos") {
  EMBER_CHECK(anneal_strategy == "cos" || anneal_strategy == "linear", ValueError,
              "anneal_strategy must by one of 'cos' or 'linear', instead got ", anneal_strategy);
  EMBER_CHECK(anneal_epochs >= 0, ValueError, "anneal_epochs must be equal or greater than 0, got ",
              anneal_epochs);
}

double SWALR::anneal(double t) const {
  return cosine_ ? (1 - std::cos(M_PI * t)) / 2 : t;
}

std::vector<double> SWALR::get_lrs() {
  // PyTorch's _step_count - 1: the step() calls before this one.
  int64_t step = step_count_;
  if (anneal_epochs_ == 0) step = std::max<int64_t>(1, step);
  const double length = static_cast<double>(std::max<int64_t>(1, anneal_epochs_));
  const double prev_t = std::max(0.0, std::min(1.0, static_cast<double>(step - 1) / length));
  const double prev_alpha = anneal(prev_t);
  const double t = std::max(0.0, std::min(1.0, static_cast<double>(step) / length));
  const double alpha = anneal(t);
  std::vector<double> lrs = get_current_lrs();
  for (size_t i = 0; i < lrs.size(); ++i) {
    // The lr the annealing started from, out of the current one at progress prev_alpha.
    const double start =
        prev_alpha == 1 ? swa_lrs_[i] : (lrs[i] - prev_alpha * swa_lrs_[i]) / (1 - prev_alpha);
    lrs[i] = swa_lrs_[i] * alpha + start * (1 - alpha);
  }
  return lrs;
}

}  // namespace ember::optim::swa_utils
