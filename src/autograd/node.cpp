// Nodes of the tape: FunctionNode (an op's backward as a closure) and AccumulateGrad (the sink
// that adds a gradient into a leaf's .grad).
#include "autograd/node_impl.h"

#include <atomic>

#include "ember/ops.h"

namespace ember::autograd {
namespace {
std::atomic<uint64_t> g_next_sequence_nr{0};
thread_local bool t_grad_enabled = true;
thread_local Node* t_current_node = nullptr;

// Marks `node` as the one whose backward runs, for SavedTensor::unpack.
class CurrentNodeGuard {
 public:
  explicit CurrentNodeGuard(Node* node) : previous_(t_current_node) { t_current_node = node; }
  ~CurrentNodeGuard() { t_current_node = previous_; }
  CurrentNodeGuard(const CurrentNodeGuard&) = delete;
  CurrentNodeGuard& operator=(const CurrentNodeGuard&) = delete;

 private:
  Node* previous_;
};
}  // namespace

Node* current_node() {
  return t_current_node;
}

bool GradMode::is_enabled() {
  return t_grad_enabled;
}
void GradMode::set_enabled(bool enabled) {
  t_grad_enabled = enabled;
}

Node::Node() : sequence_nr_(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

variable_list FunctionNode::apply(variable_list&& grads) {
  EMBER_CHECK(backward_, Error,
              "Trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed). Saved intermediate values of the "
              "graph are freed when you call .backward() or autograd::grad(). Specify "
              "retain_graph=true if you need to backward through the graph a second time. (in ",
              name_, ")");
  // Outputs that received no gradient get zeros, so each rule sees a full list.
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) {
      grads[i] = zeros(output_meta_[i].sizes,
                       TensorOptions().dtype(output_meta_[i].dtype).device(output_meta_[i].device));
    }
  }
  for (auto& [index, tensor] : retained_) {
    if (index < grads.size()) tensor.mutable_grad() = grads[index].detach();
  }
  variable_list result;
  {
    CurrentNodeGuard guard(this);
    result = backward_(grads);
  }
  EMBER_CHECK(result.size() == next_edges_.size(), Error, name_, " returned ", result.size(),
              " gradients for ", next_edges_.size(), " inputs");
  for (size_t i = 0; i < result.size(); ++i) {
    if (!result[i].defined() || !next_edges_[i].is_valid()) continue;
    const auto& m = input_meta_[i];
    if (result[i].sizes() != IntArrayRef(m.sizes)) {
      throw Error(detail::str_cat("Function ", name_, " returned an invalid gradient at index ", i,
                                  " - got ", result[i].sizes(),
                                  " but expected shape compatible with ", IntArrayRef(m.sizes)));
    }
    if (result[i].dtype() != m.dtype) result[i] = result[i].to(m.dtype);
  }
  return result;
}

void FunctionNode::release_variables() {
  backward_ = nullptr;
  retained_.clear();
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  if (grads.empty() || !grads[0].defined()) return {};
  Tensor& g = variable_.mutable_grad();
  Tensor incoming = std::move(grads[0]);
  if (incoming.dtype() != variable_.dtype()) incoming = incoming.to(variable_.dtype());
  if (!g.defined()) {
    // Keep the graph under create_graph; otherwise take over the buffer when nobody else holds
    // it (as PyTorch does), and copy only when it is shared or a view.
    bool sole_owner = incoming.use_count() == 1 &&
                      incoming.unsafeGetTensorImpl()->storage().use_count() == 1 &&
                      incoming.is_contiguous();
    if (GradMode::is_enabled()) {
      g = incoming;
    } else {
      g = sole_owner ? incoming.detach() : incoming.detach().clone();
    }
  } else if (GradMode::is_enabled()) {
    g = g + incoming;
  } else {
    g.add_(incoming);
  }
  auto* meta = variable_.unsafeGetTensorImpl()->autograd_meta();
  if (meta && !meta->post_accumulate_grad_hooks.empty()) {
    auto hooks = meta->post_accumulate_grad_hooks;  // a hook may remove itself
    for (auto& [handle, hook] : hooks) hook(variable_);
  }
  return {};
}

uint64_t register_post_accumulate_grad_hook(const Tensor& leaf, PostAccumulateGradHook hook) {
  EMBER_CHECK(leaf.defined(), ValueError, "register_post_accumulate_grad_hook: undefined tensor");
  auto& meta = leaf.unsafeGetTensorImpl()->ensure_autograd_meta();
  EMBER_CHECK(meta.requires_grad && !meta.grad_fn, Error,
              "post accumulate grad hooks cannot be registered on non-leaf tensors (or tensors "
              "that do not require grad)");
  static std::atomic<uint64_t> next_handle{1};
  uint64_t handle = next_handle.fetch_add(1);
  meta.post_accumulate_grad_hooks.emplace_back(handle, std::move(hook));
  return handle;
}

void remove_post_accumulate_grad_hook(const Tensor& leaf, uint64_t handle) {
  auto* meta = leaf.defined() ? leaf.unsafeGetTensorImpl()->autograd_meta() : nullptr;
  if (!meta) return;
  auto& hooks = meta->post_accumulate_grad_hooks;
  for (auto it = hooks.begin(); it != hooks.end(); ++it) {
    if (it->first == handle) {
      hooks.erase(it);
      return;
    }
  }
}

}  // namespace ember::autograd
