#pragma once
// A Python object kept by the C++ autograd graph (a hook, a Python Function's backward). Graph
// nodes may be freed on any thread, with or without the GIL: the reference is dropped with it.
#include <memory>

#include "common.h"

namespace ember::python {

class PyRef {
 public:
  explicit PyRef(nb::handle h) : obj_(h.ptr()) { Py_XINCREF(obj_); }
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  ~PyRef() {
    if (!obj_ || !Py_IsInitialized()) return;
    nb::gil_scoped_acquire gil;
    Py_DECREF(obj_);
  }
  // Only with the GIL held.
  nb::handle get() const { return obj_; }

 private:
  PyObject* obj_;
};

using SharedPyRef = std::shared_ptr<PyRef>;

}  // namespace ember::python
