#pragma once
// The momentum that CyclicLR and OneCycleLR cycle, read and written through the options'
// values() / set_values() names, so every optimizer kind is covered without a cast per kind:
// "momentum" (SGD, RMSprop) or "beta1", the first of Adam's betas (PyTorch's use_beta1).
#include <string>

#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

// "momentum", "beta1", or "" when the options have neither.
std::string momentum_name(const OptimizerOptions& options);
double get_momentum(const OptimizerOptions& options, const std::string& name);
void set_momentum(OptimizerOptions& options, const std::string& name, double value);

}  // namespace ember::optim::detail
