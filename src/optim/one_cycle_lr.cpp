// OneCycleLR: torch.optim.lr_scheduler.OneCycleLR's phases and get_lr; the per-group lrs and
// momenta PyTorch keeps in the param_groups ('initial_lr', 'max_lr', ...) live here.
#include "ember/optim/one_cycle_lr.h"

#include <cmath>

#include "momentum_option.h"

namespace ember::optim {

namespace {

int64_t checked_total_steps(const OneCycleLROptions& o) {
  if (o.total_steps()) {
    EMBER_CHECK(*o.total_steps() > 0, ValueError, "Expected positive integer total_steps, but got ",
                *o.total_steps());
    return *o.total_steps();
  }
  EMBER_CHECK(o.epochs() && o.steps_per_epoch(), ValueError,
              "You must define either total_steps OR (epochs AND steps_per_epoch)");
  EMBER_CHECK(*o.epochs() > 0, ValueError, "Expected positive integer epochs, but got ",
              *o.epochs());
  EMBER_CHECK(*o.steps_per_epoch() > 0, ValueError,
              "Expected positive integer steps_per_epoch, but got ", *o.steps_per_epoch());
  return *o.epochs() * *o.steps_per_epoch();
}

}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, OneCycleLROptions options)
    : LRScheduler(optimizer), options_(std::move(options)) {
  total_steps_ = checked_total_steps(options_);
  const double total = static_cast<double>(total_steps_);
  const double pct = options_.pct_start();
  const double up_end = pct * total - 1;
  if (options_.three_phase()) {
    phases_ = {
        {up_end, Level::initial_lr, Level::max_lr, Level::max_momentum, Level::base_momentum},
        {2 * pct * total - 2, Level::max_lr, Level::initial_lr, Level::base_momentum,
         Level::max_momentum},
        {total - 1, Level::initial_lr, Level::min_lr, Level::max_momentum, Level::max_momentum}};
  } else {
    phases_ = {
        {up_end, Level::initial_lr, Level::max_lr, Level::max_momentum, Level::base_momentum},
        {total - 1, Level::max_lr, Level::min_lr, Level::base_momentum, Level::max_momentum}};
  }
  EMBER_CHECK(pct >= 0 && pct <= 1, ValueError,
              "Expected float between 0 and 1 pct_start, but got ", pct);
  const std::string& strategy = options_.anneal_strategy();
  EMBER_CHECK(strategy == "cos" || strategy == "linear", ValueError,
              "anneal_strategy must by one of 'cos' or 'linear', instead got ", strategy);
  const size_t groups = base_lrs_.size();
  max_lrs_ = detail::per_group(options_.max_lr(), groups, "max_lr");
  for (double top : max_lrs_) {
    initial_lrs_.push_back(top / options_.div_factor());
    min_lrs_.push_back(initial_lrs_.back() / options_.final_div_factor());
  }
  base_lrs_ = initial_lrs_;
  if (options_.cycle_momentum()) {
    momentum_name_ = detail::momentum_name(optimizer.defaults());
    EMBER_CHECK(!momentum_name_.empty(), ValueError,
                "optimizer must support momentum with `cycle_momentum` option enabled (",
                optimizer.defaults().type_name(), " has neither momentum nor betas)");
    max_momentums_ = detail::per_group(options_.max_momentum(), groups, "max_momentum");
    base_momentums_ = detail::per_group(options_.base_momentum(), groups, "base_momentum");
  }
}

double OneCycleLR::level(Level which, size_t group) const {
  switch (which) {
    case Level::initial_lr:
      return initial_lrs_[group];
    case Level::max_lr:
      return max_lrs_[group];
    case Level::min_lr:
      return min_lrs_[group];
    case Level::max_momentum:
      return max_momentums_[group];
    case Level::base_momentum:
      return base_momentums_[group];
  }
  return 0;
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (options_.anneal_strategy() == "cos")
    return end + (start - end) / 2.0 * (std::cos(M_PI * pct) + 1);
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::get_lrs() {
  const int64_t step = last_epoch_;
  EMBER_CHECK(step <= total_steps_, ValueError, "Tried to step ", step + 1,
              " times. The specified number of total steps is ", total_steps_);
  const double s = static_cast<double>(step);
  auto& groups = optimizer_.param_groups();
  std::vector<double> lrs;
  for (size_t g = 0; g < groups.size(); ++g) {
    double start_step = 0;
    for (size_t i = 0; i < phases_.size(); ++i) {
      const Phase& phase = phases_[i];
      if (s <= phase.end_step || i + 1 == phases_.size()) {
        const double pct = (s - start_step) / (phase.end_step - start_step);
        lrs.push_back(anneal(level(phase.start_lr, g), level(phase.end_lr, g), pct));
        if (options_.cycle_momentum()) {
          const double momentum =
              anneal(level(phase.start_momentum, g), level(phase.end_momentum, g), pct);
          detail::set_momentum(groups[g].options(), momentum_name_, momentum);
        }
        break;
      }
      start_step = phase.end_step;
    }
  }
  return lrs;
}

}  // namespace ember::optim
