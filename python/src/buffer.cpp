// The buffer protocol on ember.Tensor: memoryview(t), bytes(t), array.array and struct read and
// write a CPU tensor's memory in place. The slots are given to the class at creation
// (gc.cpp's tensor_type_slots); a CUDA tensor, a tensor that requires grad or a dtype without a
// buffer format raises BufferError saying which.
#include <string>
#include <vector>

#include "common.h"

namespace ember::python {
namespace {

const char* buffer_format(ScalarType t) {
  switch (t) {
    case kFloat:
      return "f";
    case kDouble:
      return "d";
    case kHalf:
      return "e";
    case kLong:
      return "q";
    case kInt:
      return "i";
    case kShort:
      return "h";
    case kChar:
      return "b";
    case kByte:
      return "B";
    case kBool:
      return "?";
    default:
      return nullptr;
  }
}

// What a view holds until it is released: the tensor (keeping its memory) and the arrays.
struct View {
  Tensor tensor;
  std::vector<Py_ssize_t> shape, strides;
};

int fail(const std::string& what) {
  PyErr_SetString(PyExc_BufferError, what.c_str());
  return -1;
}

int get_buffer(PyObject* self, Py_buffer* view, int flags) {
  view->obj = nullptr;
  Tensor* t = nb::inst_ptr<Tensor>(self);
  if (!t->defined()) return fail("memoryview: the tensor is undefined");
  if (!t->is_cpu())
    return fail("memoryview: the tensor is on " + t->device().str() +
                "; only CPU tensors expose their memory (use .cpu())");
  if (t->requires_grad()) return fail("memoryview: the tensor requires grad; use tensor.detach()");
  const char* format = buffer_format(t->scalar_type());
  if (!format)
    return fail(std::string("memoryview: no buffer format for dtype ") +
                to_string(t->scalar_type()));
  bool contiguous = t->is_contiguous();
  if (!contiguous && (flags & PyBUF_STRIDES) != PyBUF_STRIDES)
    return fail(
        "memoryview: the tensor is not contiguous and the consumer did not ask for "
        "strides; use .contiguous()");
  auto* v = new View{*t, {}, {}};
  Py_ssize_t item = static_cast<Py_ssize_t>(t->element_size());
  for (int64_t d = 0; d < t->dim(); ++d) {
    v->shape.push_back(static_cast<Py_ssize_t>(t->size(d)));
    v->strides.push_back(static_cast<Py_ssize_t>(t->stride(d)) * item);
  }
  view->buf = t->data_ptr();
  view->obj = self;
  Py_INCREF(self);
  view->len = static_cast<Py_ssize_t>(t->numel()) * item;
  view->readonly = 0;
  view->itemsize = item;
  view->format = (flags & PyBUF_FORMAT) ? const_cast<char*>(format) : nullptr;
  view->ndim = static_cast<int>(t->dim());
  view->shape = (flags & PyBUF_ND) == PyBUF_ND ? v->shape.data() : nullptr;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? v->strides.data() : nullptr;
  view->suboffsets = nullptr;
  view->internal = v;
  return 0;
}

void release_buffer(PyObject*, Py_buffer* view) {
  delete static_cast<View*>(view->internal);
}

}  // namespace

int tensor_getbuffer(PyObject* self, Py_buffer* view, int flags) {
  return get_buffer(self, view, flags);
}

void tensor_releasebuffer(PyObject* self, Py_buffer* view) {
  release_buffer(self, view);
}

}  // namespace ember::python
