// The C++ half of a Python ember.autograd.Function (ember/_function.py): its outputs are
// recorded on the tape with a backward that calls back into Python. The call takes the GIL
// back; the engine holds no lock while it waits for it.
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

#include "common.h"
#include "py_ref.h"

namespace ember::python {
namespace {

// Node names outlive every node: one interned copy per Function class name.
const char* intern(const std::string& name) {
  static std::mutex mu;
  static std::set<std::string> names;
  std::lock_guard<std::mutex> lock(mu);
  return names.insert(name).first->c_str();
}

// The backward of each recorded node, by node (for the collector): registered after record(),
// removed when the node drops its backward (after backward, or with the node).
std::mutex g_registry_mu;
std::unordered_map<const autograd::Node*, SharedPyRef> g_registry;

struct Registration {
  const autograd::Node* node = nullptr;
  Registration() = default;
  Registration(const Registration&) = delete;
  ~Registration() {
    SharedPyRef dropped;  // released after the lock: dropping it may take the GIL
    std::lock_guard<std::mutex> lock(g_registry_mu);
    auto it = g_registry.find(node);
    if (it != g_registry.end()) {
      dropped = std::move(it->second);
      g_registry.erase(it);
    }
  }
};

}  // namespace

int visit_python_function(const autograd::Node* node, visitproc visit, void* arg) {
  PyObject* fn = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_registry_mu);
    auto it = g_registry.find(node);
    // Held by the node's backward and the registry only: nothing else reaches it.
    if (it != g_registry.end() && it->second.use_count() == 2) fn = it->second->get().ptr();
  }
  Py_VISIT(fn);
  return 0;
}

namespace {

// One backward call: the gradients of the outputs to Python, one gradient per input back.
autograd::variable_list call_backward(const PyRef& fn, const autograd::variable_list& grads,
                                      size_t n_inputs, const std::string& name) {
  nb::gil_scoped_acquire gil;
  nb::list args;
  for (const Tensor& g : grads) args.append(tensor_or_none(g));
  nb::object r = fn.get()(*nb::tuple(args));
  autograd::variable_list out;
  for (nb::handle h : nb::borrow<nb::sequence>(r)) {
    if (h.is_none()) {
      out.emplace_back();
      continue;
    }
    EMBER_CHECK(nb::isinstance<Tensor>(h), ArgumentTypeError, name,
                ": backward must return tensors or None, got ", nb::type_name(h.type()).c_str());
    out.push_back(nb::cast<Tensor>(h));
  }
  EMBER_CHECK(out.size() == n_inputs, Error, name,
              ": backward returned an incorrect number of gradients (expected ", n_inputs, ", got ",
              out.size(), ")");
  return out;
}

}  // namespace

void init_python_function(nb::module_& m) {
  // backward(*grads) -> a sequence of one gradient (a Tensor or None) per input.
  m.def(
      "_record_function",
      [](const std::string& name, std::vector<Tensor> outputs, std::vector<Tensor> inputs,
         nb::callable backward) {
        auto fn = std::make_shared<PyRef>(backward);
        auto reg = std::make_shared<Registration>();
        size_t n_inputs = inputs.size();
        autograd::record(intern(name), outputs, inputs,
                         [fn, reg, n_inputs, name](const autograd::variable_list& grads) {
                           return call_backward(*fn, grads, n_inputs, name);
                         });
        reg->node = outputs[0].grad_fn().get();
        std::lock_guard<std::mutex> lock(g_registry_mu);
        g_registry[reg->node] = fn;
      },
      "name"_a, "outputs"_a, "inputs"_a, "backward"_a);
}

}  // namespace ember::python
