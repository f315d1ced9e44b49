// Autograd from Python: the grad mode switch (ember.no_grad and friends are Python context
// managers over it, ember/autograd.py), grad_fn nodes, ember.autograd.backward/grad.
#include <nanobind/stl/shared_ptr.h>

#include "common.h"
#include "ember/python_names.h"

namespace ember::python {

void init_autograd(nb::module_& m) {
  m.def("is_grad_enabled", [] { return autograd::GradMode::is_enabled(); });
  m.def(
      "_set_grad_enabled", [](bool on) { autograd::GradMode::set_enabled(on); }, "mode"_a);
  nb::class_<autograd::Node>(m, "Node")
      .def("name", [](const autograd::Node& n) { return detail::python_node_name(n.name()); })
      .def("__repr__", [](const autograd::Node& n) {
        return "<" + detail::python_node_name(n.name()) + " object>";
      });
  m.def(
      "_backward",
      [](std::vector<Tensor> outputs, std::vector<Tensor> grads, std::optional<bool> retain,
         bool create) {
        nb::gil_scoped_release release;
        autograd::backward(outputs, grads, retain.value_or(create), create);
      },
      "tensors"_a, "grad_tensors"_a, "retain_graph"_a = nb::none(), "create_graph"_a = false);
  m.def(
      "_grad",
      [](std::vector<Tensor> outputs, std::vector<Tensor> inputs, std::vector<Tensor> grads,
         std::optional<bool> retain, bool create, bool allow_unused) {
        std::vector<Tensor> r;
        {
          nb::gil_scoped_release release;
          struct Flag {  // hooks.cpp: hooked leaves do not accumulate inside autograd.grad
            bool prev = t_in_autograd_grad;
            Flag() { t_in_autograd_grad = true; }
            ~Flag() { t_in_autograd_grad = prev; }
          } flag;
          r = autograd::grad(outputs, inputs, grads, retain, create, allow_unused);
        }
        nb::list out;
        for (const Tensor& t : r) out.append(tensor_or_none(t));
        return nb::tuple(out);
      },
      "outputs"_a, "inputs"_a, "grad_outputs"_a, "retain_graph"_a = nb::none(),
      "create_graph"_a = false, "allow_unused"_a = false);
}

}  // namespace ember::python
