// x[...] and x[...] = v: Python's subscripts (ints, bools, slices, None, Ellipsis, tensors and
// lists of ints) turned into ember::indexing::TensorIndex, as libtorch spells them.
#include <string>

#include "common.h"

namespace ember::python {
namespace {

using indexing::TensorIndex;

std::optional<int64_t> slice_part(PyObject* v) {
  if (v == Py_None) return std::nullopt;
  return nb::cast<int64_t>(nb::handle(v));
}

TensorIndex one_index(nb::handle h) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return TensorIndex(o == Py_True);
  if (PyLong_Check(o)) return TensorIndex(nb::cast<int64_t>(h));
  if (o == Py_None) return TensorIndex(indexing::None);
  if (o == Py_Ellipsis) return TensorIndex(indexing::Ellipsis);
  if (PySlice_Check(o)) {
    auto* s = reinterpret_cast<PySliceObject*>(o);
    return TensorIndex(
        indexing::Slice(slice_part(s->start), slice_part(s->stop), slice_part(s->step)));
  }
  if (nb::isinstance<Tensor>(h)) return TensorIndex(nb::cast<Tensor>(h));
  if (PyList_Check(o)) {
    std::vector<int64_t> v = int_list(h, "index");
    return TensorIndex(ember::tensor(v, kLong));
  }
  if (PyIndex_Check(o)) return TensorIndex(nb::cast<int64_t>(nb::steal(PyNumber_Index(o))));
  throw IndexError(std::string("only integers, slices (`:`), ellipsis (`...`), None and long or "
                               "byte Variables are valid indices (got ") +
                   nb::type_name(h.type()).c_str() + ")");
}

std::vector<TensorIndex> indices_of(nb::handle key) {
  std::vector<TensorIndex> out;
  if (PyTuple_Check(key.ptr())) {
    for (nb::handle h : nb::borrow<nb::tuple>(key)) out.push_back(one_index(h));
  } else {
    out.push_back(one_index(key));
  }
  return out;
}

}  // namespace

void init_indexing(nb::class_<Tensor>& cls) {
  cls.def(
         "__getitem__",
         [](const Tensor& t, nb::handle key) {
           // x[i]: the common case, without building an index list.
           if (PyLong_Check(key.ptr()) && !PyBool_Check(key.ptr())) {
             int64_t i = nb::cast<int64_t>(key);
             EMBER_CHECK(t.dim() > 0, IndexError,
                         "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
             nb::gil_scoped_release release;
             return t.select(0, i);
           }
           auto idx = indices_of(key);
           nb::gil_scoped_release release;
           return t.index(idx);
         },
         nb::arg("key").none())
      .def(
          "__setitem__",
          [](const Tensor& t, nb::handle key, const Tensor& v) {
            auto idx = indices_of(key);
            nb::gil_scoped_release release;
            t.index_put_(idx, v);
          },
          nb::arg("key").none(), "value"_a)
      .def(
          "__setitem__",
          [](const Tensor& t, nb::handle key, const Scalar& v) {
            auto idx = indices_of(key);
            nb::gil_scoped_release release;
            t.index_put_(idx, v);
          },
          nb::arg("key").none(), "value"_a);
}

}  // namespace ember::python
