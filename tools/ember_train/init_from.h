#pragma once
// ember-train --init-from PATH: the model starts from saved weights. PATH is a file of PyTorch's
// torch.save (a state dict, or a training checkpoint holding one under "model" or "state_dict",
// as written by `torch.save({"model": model.state_dict(), ...})`) or a safetensors file (an
// earlier run's model.safetensors); which one is told by the file's first bytes. Ember's models
// name their parameters as the same PyTorch modules do, so a PyTorch model of the same
// architecture loads as it is.
#include <ostream>
#include <string>

#include "ember/nn/module.h"

namespace ember::train {

// Loads PATH into `model` (strict: every name and shape must match) and says so on `out`.
// Throws ember::ValueError naming the flag, the file and what does not fit.
void load_initial_weights(nn::Module& model, const std::string& path, std::ostream& out);

}  // namespace ember::train
