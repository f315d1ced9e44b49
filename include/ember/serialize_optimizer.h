#pragma once
// ember::save / ember::load of an optimizer's state (libtorch's torch::save(optimizer, path) /
// torch::load(optimizer, path)): Optimizer::state_dict() as a safetensors file with metadata
// "ember.content" = "optimizer" and "ember.optimizer" = its options' type ("AdamOptions", ...).
// Loading into an optimizer over parameters of the same shapes restores the groups' options and
// every per-parameter state (momentum buffers, moments, step counts), so training resumes with
// the same next steps. Saving is atomic (serialize.h).
#include <string>

#include "ember/optim/optimizer.h"
#include "ember/serialize.h"

namespace ember {

EMBER_API void save(const optim::Optimizer& optimizer, const std::string& path);
// Throws ValueError naming the file when it holds something else (a tensor, a module, another
// optimizer kind) or does not fit this optimizer (Optimizer::load_state_dict's checks).
EMBER_API void load(optim::Optimizer& optimizer, const std::string& path);

}  // namespace ember
