// Tensor.register_hook: Python functions called with a tensor's gradient during backward, whose
// result (when not None) replaces it. Each call takes the GIL back; no Ember lock is held then.
//
// A non-leaf tensor gets a HookNode as its grad_fn, in front of the node that made it (same
// name), so every later use's gradient passes through the hooks once, summed. A leaf gets a
// LeafHookNode as its grad accumulator: hooks first, then an ordinary accumulation into .grad.
// The leaf's autograd meta owns that node (through a post-accumulate entry) and the node knows
// the leaf only by address, cleared when the meta goes, so a hooked leaf is not kept alive by
// its own hook. Uses of the tensor recorded before register_hook do not see the hook.
#include <nanobind/stl/shared_ptr.h>

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "common.h"
#include "py_ref.h"

namespace ember::python {

// Set while ember.autograd.grad runs on this thread (autograd.cpp): a hooked leaf's node must
// not write .grad then, as the engine's own accumulators do not.
thread_local bool t_in_autograd_grad = false;

namespace {

using autograd::Edge;
using autograd::Node;
using autograd::variable_list;

std::atomic<uint64_t> g_next_hook{1};

class Hooks {
 public:
  uint64_t add(nb::handle fn) {
    uint64_t id = g_next_hook.fetch_add(1);
    list_.emplace_back(id, std::make_shared<PyRef>(fn));
    return id;
  }
  // The hooks only this list keeps (for the collector; a list being run is skipped).
  int visit(visitproc visit, void* arg) const {
    for (const auto& [id, fn] : list_) {
      if (fn.use_count() == 1) Py_VISIT(fn->get().ptr());
    }
    return 0;
  }
  bool remove(uint64_t id) {
    for (auto it = list_.begin(); it != list_.end(); ++it) {
      if (it->first == id) {
        list_.erase(it);
        return true;
      }
    }
    return false;
  }
  // The gradient after every hook, called in registration order with the GIL.
  Tensor run(Tensor grad) {
    if (list_.empty() || !grad.defined()) return grad;
    nb::gil_scoped_acquire gil;
    auto hooks = list_;  // a hook may remove itself
    for (auto& [id, fn] : hooks) {
      nb::object r = fn->get()(grad);
      if (r.is_none()) continue;
      EMBER_CHECK(nb::isinstance<Tensor>(r), ArgumentTypeError,
                  "a tensor hook must return None or a ", "Tensor, but it returned ",
                  nb::type_name(r.type()).c_str());
      Tensor g = nb::cast<Tensor>(r);
      EMBER_CHECK(g.sizes() == grad.sizes(), Error, "hook has changed the size of value: from ",
                  grad.sizes(), " to ", g.sizes());
      grad = g;
    }
    return grad;
  }

 private:
  std::vector<std::pair<uint64_t, SharedPyRef>> list_;
};

class HookNode final : public Node {
 public:
  HookNode(Edge inner) {
    name_ = inner.function->name();
    next_edges_.push_back(std::move(inner));
  }
  variable_list apply(variable_list&& grads) override { return {hooks.run(std::move(grads[0]))}; }
  std::string name() const override { return name_; }
  Hooks hooks;

 private:
  std::string name_;
};

class LeafHookNode final : public Node {
 public:
  explicit LeafHookNode(TensorImpl* leaf) : leaf_(leaf) {}
  variable_list apply(variable_list&& grads) override {
    Tensor g = hooks.run(std::move(grads[0]));
    TensorImpl* impl = leaf_.load();
    if (!g.defined() || !impl || t_in_autograd_grad) return {};
    Tensor leaf{Ref<TensorImpl>(impl)};
    accumulator(leaf)->apply({g});
    return {};
  }
  std::string name() const override { return "AccumulateGrad"; }
  void forget_leaf() { leaf_.store(nullptr); }
  Hooks hooks;

 private:
  // The library's own accumulator for `leaf` (made as any op's edge to a leaf is made, with this
  // node out of the way for that moment), used once.
  std::shared_ptr<Node> accumulator(const Tensor& leaf) {
    auto& meta = leaf.unsafeGetTensorImpl()->ensure_autograd_meta();
    auto self = meta.grad_accumulator;
    meta.grad_accumulator.reset();
    Tensor probe = empty({0});
    autograd::record("LeafProbe", {probe}, {leaf},
                     [](const variable_list&) { return variable_list{Tensor()}; });
    meta.grad_accumulator = self;
    return probe.grad_fn()->next_edges()[0].function;
  }
  std::atomic<TensorImpl*> leaf_;
};

// Lives in the leaf's post-accumulate hook list (so in its autograd meta): owns the node, and
// tells it when the leaf is gone.
struct LeafHookOwner {
  std::shared_ptr<LeafHookNode> node;
  explicit LeafHookOwner(std::shared_ptr<LeafHookNode> n) : node(std::move(n)) {}
  LeafHookOwner(const LeafHookOwner&) = delete;
  ~LeafHookOwner() { node->forget_leaf(); }
};

Hooks& hooks_of(const Tensor& t) {
  EMBER_CHECK(t.requires_grad(), Error,
              "cannot register a hook on a tensor that doesn't require gradient");
  auto& meta = t.unsafeGetTensorImpl()->ensure_autograd_meta();
  if (meta.grad_fn) {
    if (auto* h = dynamic_cast<HookNode*>(meta.grad_fn.get())) return h->hooks;
    auto node = std::make_shared<HookNode>(Edge{meta.grad_fn, meta.output_nr});
    meta.grad_fn = node;
    meta.output_nr = 0;
    return node->hooks;
  }
  if (auto acc = meta.grad_accumulator.lock()) {
    if (auto* h = dynamic_cast<LeafHookNode*>(acc.get())) return h->hooks;
  }
  auto node = std::make_shared<LeafHookNode>(t.unsafeGetTensorImpl());
  auto owner = std::make_shared<LeafHookOwner>(node);
  autograd::register_post_accumulate_grad_hook(t, [owner](const Tensor&) {});
  meta.grad_accumulator = node;
  return node->hooks;
}

}  // namespace

int visit_tensor_hooks(const Tensor& t, visitproc visit, void* arg) {
  auto* meta = t.unsafeGetTensorImpl()->autograd_meta();
  if (!meta) return 0;
  if (meta->grad_fn) {
    if (meta->grad_fn.use_count() != 1) return 0;
    auto* h = dynamic_cast<HookNode*>(meta->grad_fn.get());
    if (!h) return visit_python_function(meta->grad_fn.get(), visit, arg);
    if (int r = h->hooks.visit(visit, arg)) return r;
    const Edge& inner = h->next_edges()[0];
    if (inner.function.use_count() != 1) return 0;
    return visit_python_function(inner.function.get(), visit, arg);
  }
  std::shared_ptr<Node> acc = meta->grad_accumulator.lock();
  auto* h = dynamic_cast<LeafHookNode*>(acc.get());
  if (!h || acc.use_count() != 2) return 0;  // its owner and `acc`: no use recorded
  return h->hooks.visit(visit, arg);
}

void init_hooks(nb::class_<Tensor>& cls) {
  cls.def(
      "_register_hook", [](const Tensor& t, nb::callable fn) { return hooks_of(t).add(fn); },
      "hook"_a);
  cls.def(
      "_remove_hook",
      [](const Tensor& t, uint64_t id) {
        if (!t.requires_grad()) return false;
        return hooks_of(t).remove(id);
      },
      "handle"_a);
}

}  // namespace ember::python
