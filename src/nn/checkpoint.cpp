// The reentrant checkpoint: a backward node that recomputes its forward and calls the engine
// again from inside the backward pass (autograd::backward), as torch.utils.checkpoint's default
// form. The generator state is saved and restored around the recomputation so random ops
// (dropout) draw what they drew in the forward, and the caller's stream of random numbers is
// left where the backward found it.
#include "ember/utils/checkpoint.h"

#include <vector>

#include "core/generator.h"
#include "ember/autograd_function.h"
#include "ember/error.h"

namespace ember::utils {

variable_list checkpoint(const CheckpointFunction& function, const variable_list& inputs,
                         bool preserve_rng_state) {
  const PhiloxState rng = generator_state();
  variable_list outputs;
  {
    NoGradGuard no_grad;
    outputs = function(inputs);
  }
  bool needs_grad = false;
  for (const Tensor& t : inputs) needs_grad = needs_grad || (t.defined() && t.requires_grad());
  // Parameters used inside `function` count too: PyTorch records the node whenever grad mode is
  // on and any input requires grad; with no such input nothing upstream needs the node.
  if (!GradMode::is_enabled() || !needs_grad) return outputs;
  for (const Tensor& t : outputs) {
    EMBER_CHECK(t.defined(), ValueError,
                "checkpoint: the checkpointed function returned an undefined tensor");
  }
  autograd::record(
      "CheckpointFunctionBackward", outputs, inputs,
      [function, inputs, rng, preserve_rng_state](const variable_list& grads) {
        variable_list detached;
        detached.reserve(inputs.size());
        for (const Tensor& t : inputs) {
          detached.push_back(t.defined() ? t.detach().requires_grad_(t.requires_grad()) : t);
        }
        const PhiloxState caller_rng = generator_state();
        if (preserve_rng_state) set_generator_state(rng);
        variable_list recomputed;
        {
          EnableGradGuard grad_on;
          recomputed = function(detached);
        }
        if (preserve_rng_state) set_generator_state(caller_rng);
        // Backpropagate the outputs that took part in a graph and received a gradient.
        variable_list outs, outs_grads;
        for (size_t i = 0; i < recomputed.size() && i < grads.size(); ++i) {
          if (recomputed[i].requires_grad() && grads[i].defined()) {
            outs.push_back(recomputed[i]);
            outs_grads.push_back(grads[i]);
          }
        }
        EMBER_CHECK(
            !outs.empty(), Error,
            "checkpoint: none of the outputs has a gradient; at least one output of the "
            "checkpointed function must depend on an input or parameter that requires grad");
        autograd::backward(outs, outs_grads);
        variable_list input_grads;
        for (const Tensor& t : detached) input_grads.push_back(t.defined() ? t.grad() : Tensor());
        return input_grads;
      });
  return outputs;
}

Tensor checkpoint_sequential(const std::vector<std::function<Tensor(const Tensor&)>>& functions,
                             int64_t segments, const Tensor& input, bool preserve_rng_state) {
  EMBER_CHECK(segments >= 1, ValueError, "checkpoint_sequential: segments must be >= 1, got ",
              segments);
  const int64_t n = static_cast<int64_t>(functions.size());
  const int64_t segment_size = n / segments;  // PyTorch's split: the remainder goes to the last
  Tensor x = input;
  int64_t end = -1;
  for (int64_t start = 0; start < segment_size * (segments - 1); start = end + 1) {
    end = start + segment_size - 1;
    // The backward runs after this function returns: the segment keeps its own copies.
    std::vector<std::function<Tensor(const Tensor&)>> segment(functions.begin() + start,
                                                              functions.begin() + end + 1);
    const CheckpointFunction run_segment = [segment](const variable_list& in) {
      Tensor y = in[0];
      for (const auto& f : segment) y = f(y);
      return variable_list{y};
    };
    x = checkpoint(run_segment, {x}, preserve_rng_state)[0];
  }
  for (int64_t i = end + 1; i < n; ++i) x = functions[static_cast<size_t>(i)](x);
  return x;
}

}  // namespace ember::utils
