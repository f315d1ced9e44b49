#pragma once
// Autograd: a dynamic tape as in PyTorch. Each op whose inputs require grad attaches a Node (its
// backward) to its output; backward() walks the graph from the root in dependency order.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember::autograd {

class Node;
using variable_list = std::vector<Tensor>;
using tensor_list = std::vector<Tensor>;  // libtorch's other name for it

struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
  bool is_valid() const { return function != nullptr; }
};

class EMBER_API Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node() = default;
  // Maps gradients of this node's outputs to gradients of its inputs (one per next edge).
  virtual variable_list apply(variable_list&& grad_outputs) = 0;
  virtual std::string name() const = 0;
  // Frees saved tensors once backward ran without retain_graph.
  virtual void release_variables() {}
  const std::vector<Edge>& next_edges() const { return next_edges_; }
  uint64_t sequence_nr() const { return sequence_nr_; }
  size_t num_outputs() const { return num_outputs_; }

  std::vector<Edge> next_edges_;
  size_t num_outputs_ = 1;
  uint64_t sequence_nr_;
};

using PostAccumulateGradHook = std::function<void(const Tensor& leaf)>;

struct AutogradMeta {
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  std::weak_ptr<Node> grad_accumulator;
  bool requires_grad = false;
  bool retains_grad = false;
  uint32_t output_nr = 0;
  // Leaves only: run after a backward pass accumulated into .grad, with their handles.
  std::vector<std::pair<uint64_t, PostAccumulateGradHook>> post_accumulate_grad_hooks;
};

// Thread-local switch for recording (torch.no_grad / torch.enable_grad).
class EMBER_API GradMode {
 public:
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};
struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};
struct EnableGradGuard : AutoGradMode {
  EnableGradGuard() : AutoGradMode(true) {}
};

// Tensor.register_post_accumulate_grad_hook: `hook(leaf)` runs each time backward has added a
// gradient into leaf.grad() (how DistributedDataParallel learns that a gradient is ready).
// Returns a handle for remove_post_accumulate_grad_hook.
EMBER_API uint64_t register_post_accumulate_grad_hook(const Tensor& leaf,
                                                      PostAccumulateGradHook hook);
EMBER_API void remove_post_accumulate_grad_hook(const Tensor& leaf, uint64_t handle);
// Runs `callback` on this thread once the running backward pass has finished every node
// (Variable._execution_engine.queue_callback). Throws when no backward pass is running.
EMBER_API void queue_callback(std::function<void()> callback);

// Runs backward from `outputs` (torch.autograd.backward).
EMBER_API void backward(const variable_list& outputs, const variable_list& grad_outputs = {},
                        bool retain_graph = false, bool create_graph = false);
// Returns d(outputs)/d(inputs) without touching .grad (torch.autograd.grad).
EMBER_API variable_list grad(const variable_list& outputs, const variable_list& inputs,
                             const variable_list& grad_outputs = {},
                             std::optional<bool> retain_graph = std::nullopt,
                             bool create_graph = false, bool allow_unused = false);

}  // namespace ember::autograd

namespace ember {
using autograd::EnableGradGuard;
using autograd::GradMode;
using autograd::NoGradGuard;
}  // namespace ember
