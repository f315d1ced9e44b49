// The backward pass: dependency counting from the roots, then nodes run in reverse creation
// order once all their gradients have arrived (the order PyTorch's engine uses on the CPU).
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/node_impl.h"
#include "core/autocast_hook.h"
#include "core/listener.h"
#include "ember/ops.h"

namespace ember::autograd {

namespace {

// Callbacks queued during the backward pass running on this thread (null outside backward).
thread_local std::vector<std::function<void()>>* t_final_callbacks = nullptr;

class FinalCallbacksScope {
 public:
  FinalCallbacksScope() : previous_(t_final_callbacks) { t_final_callbacks = &callbacks_; }
  ~FinalCallbacksScope() { t_final_callbacks = previous_; }
  FinalCallbacksScope(const FinalCallbacksScope&) = delete;
  FinalCallbacksScope& operator=(const FinalCallbacksScope&) = delete;
  // A callback may queue another: run until none is left.
  void run() {
    for (size_t i = 0; i < callbacks_.size(); ++i) {
      auto callback = std::move(callbacks_[i]);
      callback();
    }
    callbacks_.clear();
  }

 private:
  std::vector<std::function<void()>> callbacks_;
  std::vector<std::function<void()>>* previous_;
};

struct ReadyOrder {
  bool operator()(Node* a, Node* b) const { return a->sequence_nr() < b->sequence_nr(); }
};

// Runs the graph below `roots`. When `capture` is non-null, gradients reaching those edges are
// stored there instead of flowing on (autograd::grad); otherwise leaves accumulate into .grad.
void run_backward(const std::vector<Edge>& roots, variable_list root_grads, bool retain_graph,
                  bool create_graph,
                  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>>* capture,
                  variable_list* captured) {
  AutoGradMode mode(create_graph);
  FinalCallbacksScope final_callbacks;
  // Gradients follow the forward graph's dtypes, whether or not backward is called inside an
  // autocast region (PyTorch advises against that; here it makes no difference).
  amp::AutocastOffGuard no_autocast;
  std::unordered_map<Node*, int> deps;
  std::unordered_set<Node*> seen;
  std::vector<Node*> stack;
  for (const Edge& e : roots) {
    if (e.function && seen.insert(e.function.get()).second) stack.push_back(e.function.get());
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    if (capture && capture->count(n)) continue;  // do not run past captured inputs
    for (const Edge& e : n->next_edges()) {
      if (!e.function) continue;
      ++deps[e.function.get()];
      if (seen.insert(e.function.get()).second) stack.push_back(e.function.get());
    }
  }

  std::unordered_map<Node*, variable_list> buffers;
  std::unordered_map<Node*, std::shared_ptr<Node>> keep_alive;
  auto deliver = [&](const Edge& e, Tensor g) {
    if (!e.function || !g.defined()) return;
    variable_list& buf = buffers[e.function.get()];
    if (buf.size() < e.function->num_outputs()) buf.resize(e.function->num_outputs());
    Tensor& slot = buf[e.input_nr];
    slot = slot.defined() ? slot + g : g;
    keep_alive[e.function.get()] = e.function;
  };
  for (size_t i = 0; i < roots.size(); ++i) deliver(roots[i], root_grads[i]);

  std::priority_queue<Node*, std::vector<Node*>, ReadyOrder> ready;
  for (const Edge& e : roots) {
    if (e.function && deps[e.function.get()] == 0) {
      deps[e.function.get()] = -1;  // queued
      ready.push(e.function.get());
    }
  }
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    variable_list grads = std::move(buffers[n]);
    buffers.erase(n);
    if (capture) {
      auto it = capture->find(n);
      if (it != capture->end()) {
        for (auto& [input_nr, slot] : it->second) {
          if (input_nr < grads.size()) (*captured)[slot] = grads[input_nr];
        }
        continue;
      }
      // autograd::grad never writes .grad: leaves other than the inputs get nothing.
      if (dynamic_cast<AccumulateGrad*>(n)) continue;
    }
    if (grads.size() < n->num_outputs()) grads.resize(n->num_outputs());
    variable_list out;
    {
      audit::NodeScope scope(*n);  // for a profile: each node's ops
      out = n->apply(std::move(grads));
    }
    if (!retain_graph) n->release_variables();
    const auto& edges = n->next_edges();
    for (size_t i = 0; i < edges.size() && i < out.size(); ++i) deliver(edges[i], out[i]);
    for (const Edge& e : edges) {
      if (!e.function) continue;
      int& d = deps[e.function.get()];
      if (d > 0 && --d == 0) {
        d = -1;
        ready.push(e.function.get());
      }
    }
  }
  final_callbacks.run();
}

Tensor implicit_grad(const Tensor& out) {
  EMBER_CHECK(out.numel() == 1, Error,
              "grad can be implicitly created only for scalar outputs (got a tensor of shape ",
              out.sizes(), ")");
  return ones_like(out);
}

void check_requires_grad(const Tensor& out, size_t i) {
  EMBER_CHECK(requires_grad_fast(out), Error, "element ", i,
              " of tensors does not require grad and does not have a grad_fn");
}

}  // namespace

void queue_callback(std::function<void()> callback) {
  EMBER_CHECK(t_final_callbacks != nullptr, Error,
              "queue_callback: no backward pass is running on this thread (final callbacks can "
              "only be queued from hooks or functions that run during backward)");
  t_final_callbacks->push_back(std::move(callback));
}

void backward(const variable_list& outputs, const variable_list& grad_outputs, bool retain_graph,
              bool create_graph) {
  std::vector<Edge> roots;
  variable_list grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    check_requires_grad(outputs[i], i);
    roots.push_back(gradient_edge(outputs[i]));
    Tensor g = i < grad_outputs.size() && grad_outputs[i].defined() ? grad_outputs[i]
                                                                    : implicit_grad(outputs[i]);
    EMBER_CHECK(g.sizes() == outputs[i].sizes(), ValueError, "Mismatch in shape: grad_output[", i,
                "] has a shape of ", g.sizes(), " and output[", i, "] has a shape of ",
                outputs[i].sizes());
    grads.push_back(g);
  }
  run_backward(roots, std::move(grads), retain_graph || create_graph, create_graph, nullptr,
               nullptr);
}

variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs, std::optional<bool> retain_graph,
                   bool create_graph, bool allow_unused) {
  std::vector<Edge> roots;
  variable_list grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    check_requires_grad(outputs[i], i);
    roots.push_back(gradient_edge(outputs[i]));
    grads.push_back(i < grad_outputs.size() && grad_outputs[i].defined()
                        ? grad_outputs[i]
                        : implicit_grad(outputs[i]));
  }
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> capture;
  std::vector<std::shared_ptr<Node>> hold;
  for (size_t i = 0; i < inputs.size(); ++i) {
    check_requires_grad(inputs[i], i);
    Edge e = gradient_edge(inputs[i]);
    hold.push_back(e.function);
    capture[e.function.get()].emplace_back(e.input_nr, i);
  }
  variable_list result(inputs.size());
  run_backward(roots, std::move(grads), retain_graph.value_or(create_graph), create_graph, &capture,
               &result);
  for (size_t i = 0; i < result.size(); ++i) {
    EMBER_CHECK(result[i].defined() || allow_unused, Error, "One of the differentiated Tensors (",
                i,
                ") appears to not have been used in the graph. Set allow_unused=true if this "
                "is the desired behavior.");
  }
  return result;
}

}  // namespace ember::autograd
