// Garbage collection through the autograd graph. A hook or a Python Function's backward is a
// Python object the C++ graph keeps; when it refers back to the tensor (a closure over it, or a
// module's globals that hold it), the cycle passes through C++ where Python's collector cannot
// see it. The Tensor class therefore traverses, for a tensor whose Python object is the only
// owner of the graph path, the Python objects on that path, and clearing a tensor drops its
// graph. A path shared with anything else is not visited: such a tensor stays alive, which is
// the safe side.
#include "common.h"

namespace ember::python {
namespace {

int tensor_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  const Tensor& t = *nb::inst_ptr<Tensor>(self);
  if (!t.defined() || t.use_count() != 1) return 0;
  return visit_tensor_hooks(t, visit, arg);
}

int tensor_clear(PyObject* self) {
  if (nb::inst_ready(self)) *nb::inst_ptr<Tensor>(self) = Tensor();
  return 0;
}

}  // namespace

const PyType_Slot* tensor_type_slots() {
  static const PyType_Slot slots[] = {
      {Py_tp_traverse, reinterpret_cast<void*>(&tensor_traverse)},
      {Py_tp_clear, reinterpret_cast<void*>(&tensor_clear)},
      {Py_bf_getbuffer, reinterpret_cast<void*>(&tensor_getbuffer)},
      {Py_bf_releasebuffer, reinterpret_cast<void*>(&tensor_releasebuffer)},
      {0, nullptr}};
  return slots;
}

}  // namespace ember::python
