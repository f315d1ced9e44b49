#pragma once
// Activation checkpointing (torch.utils.checkpoint, reentrant form): run a piece of the model
// without keeping its intermediate tensors, and run it again in the backward pass to get them.
// Memory falls from every activation inside `function` to its inputs and outputs, at the cost of
// a second forward of that piece.
//
//   auto y = ember::utils::checkpoint([&](const variable_list& in) { return
//   variable_list{block->forward(in[0])}; }, {x});
#include <functional>
#include <vector>

#include "ember/autograd.h"

namespace ember::utils {

using autograd::variable_list;
using CheckpointFunction = std::function<variable_list(const variable_list&)>;

// Runs `function(inputs)` under no_grad and attaches one backward node to its outputs. That node
// runs `function` again with grad enabled on detached copies of the inputs, with the generator
// state of the first run when preserve_rng_state (so dropout draws the same mask), and
// backpropagates through that graph: gradients reach the inputs and also accumulate into every
// leaf `function` used (a module's parameters), as PyTorch's reentrant checkpoint does. So, as in
// PyTorch, the result works with backward() but not with autograd::grad.
EMBER_API variable_list checkpoint(const CheckpointFunction& function, const variable_list& inputs,
                                   bool preserve_rng_state = true);

// checkpoint_sequential: `functions` run in order on one tensor, split into `segments` runs of
// about equal length; every segment but the last is checkpointed (the last runs normally, its
// activations are needed right away).
EMBER_API Tensor
checkpoint_sequential(const std::vector<std::function<Tensor(const Tensor&)>>& functions,
                      int64_t segments, const Tensor& input, bool preserve_rng_state = true);

}  // namespace ember::utils
