// CyclicLR: torch.optim.lr_scheduler.CyclicLR's get_lr (a closed form in the iteration).
#include "ember/optim/cyclic_lr.h"

#include <cmath>

#include "momentum_option.h"

namespace ember::optim {

CyclicLR::CyclicLR(Optimizer& optimizer, CyclicLROptions options)
    : LRScheduler(optimizer), options_(std::move(options)) {
  const size_t groups = base_lrs_.size();
  // The lower bounds replace the groups' lrs as base lrs; the first step() sets them.
  base_lrs_ = detail::per_group(options_.base_lr(), groups, "base_lr");
  max_lrs_ = detail::per_group(options_.max_lr(), groups, "max_lr");
  const double up = options_.step_size_up();
  const double down = options_.step_size_down().value_or(up);
  total_size_ = up + down;
  step_ratio_ = up / total_size_;
  const std::string& mode = options_.mode();
  EMBER_CHECK(
      mode == "triangular" || mode == "triangular2" || mode == "exp_range" || options_.scale_fn(),
      ValueError, "mode is invalid and scale_fn is None (mode '", mode, "')");
  if (options_.scale_fn()) {
    scale_mode_ = options_.scale_mode();
  } else {
    scale_mode_ = mode == "exp_range" ? "iterations" : "cycle";
  }
  if (options_.cycle_momentum()) {
    EMBER_CHECK(detail::momentum_name(optimizer.defaults()) == "momentum", ValueError,
                "optimizer must support momentum with `cycle_momentum` option enabled (",
                optimizer.defaults().type_name(), " has no momentum)");
    base_momentums_ = detail::per_group(options_.base_momentum(), groups, "base_momentum");
    max_momentums_ = detail::per_group(options_.max_momentum(), groups, "max_momentum");
  }
}

double CyclicLR::scale(double x) const {
  if (options_.scale_fn()) return options_.scale_fn()(x);
  if (options_.mode() == "triangular") return 1.;
  if (options_.mode() == "triangular2") return 1 / std::pow(2., x - 1);
  return std::pow(options_.gamma(), x);  // exp_range
}

std::vector<double> CyclicLR::get_lrs() {
  const double e = static_cast<double>(last_epoch_);
  const double cycle = std::floor(1 + e / total_size_);
  const double x = 1. + e / total_size_ - cycle;
  const double scale_factor = x <= step_ratio_ ? x / step_ratio_ : (x - 1) / (step_ratio_ - 1);
  const double s = scale(scale_mode_ == "cycle" ? cycle : e);
  std::vector<double> lrs;
  for (size_t i = 0; i < base_lrs_.size(); ++i) {
    lrs.push_back(base_lrs_[i] + (max_lrs_[i] - base_lrs_[i]) * scale_factor * s);
  }
  if (options_.cycle_momentum()) {
    auto& groups = optimizer_.param_groups();
    for (size_t i = 0; i < groups.size(); ++i) {
      const double high = max_momentums_[i], low = base_momentums_[i];
      detail::set_momentum(groups[i].options(), "momentum", high - (high - low) * scale_factor * s);
    }
  }
  return lrs;
}

}  // namespace ember::optim
