#pragma once
// What the files of the compiled module ember._C share: the nanobind set-up, the Scalar caster,
// and the conversions of Python arguments (dtypes, devices, sizes) every area takes.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <tuple>
#include <vector>

#include "ember/ember.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace ember::python {

// One per area (module.cpp calls them in this order).
void init_errors(nb::module_& m);
void init_dtype(nb::module_& m);
void init_device(nb::module_& m);
void init_tensor(nb::module_& m, nb::class_<Tensor>& cls);
void init_return_types(nb::module_& m);
// The ops, one file per family, each binding an op's function ember.f and method Tensor.f
// together: ops_<family>.cpp.
void init_ops_operators(nb::class_<Tensor>& cls);
void init_ops_elementwise(nb::module_& m, nb::class_<Tensor>& cls);
void init_ops_reduction(nb::module_& m, nb::class_<Tensor>& cls);
void init_ops_sort_scan(nb::module_& m, nb::class_<Tensor>& cls);
void init_ops_indexing(nb::module_& m, nb::class_<Tensor>& cls);
void init_ops_linalg(nb::module_& m, nb::class_<Tensor>& cls);
void init_ops_shape(nb::module_& m, nb::class_<Tensor>& cls);
void init_ops_elementwise_table(nb::module_& m, nb::class_<Tensor>& cls);
void init_ops_random(nb::module_& m, nb::class_<Tensor>& cls);
void init_ops_math(nb::module_& m, nb::class_<Tensor>& cls);
void init_factories(nb::module_& m);
void init_numpy(nb::module_& m, nb::class_<Tensor>& cls);
void init_autograd(nb::module_& m);
void init_cuda(nb::module_& m);
// nn and optim (ember.nn, ember.optim): parameter.cpp, nn_functional.cpp, optim.cpp.
void init_parameter(nb::class_<Tensor>& cls);
void init_nn_functional(nb::module_& m);
void init_optim(nb::module_& m);
void init_data(nb::module_& m, nb::class_<Tensor>& cls);
void init_serialize(nb::module_& m);
void init_dlpack(nb::module_& m, nb::class_<Tensor>& cls);
void init_hooks(nb::class_<Tensor>& cls);
void init_python_function(nb::module_& m);
void init_cuda_streams(nb::module_& m);
// amp.cpp (ember._C._amp), profiler.cpp (ember._C._profiler).
void init_amp(nb::module_& m);
void init_profiler(nb::module_& m);
// distributed.cpp (ember._C._distributed).
void init_distributed(nb::module_& m);
// raw_kernel.cpp (ember._C._raw_kernel), cpp_extension.cpp (ember._C._cpp_extension).
void init_raw_kernel(nb::module_& m);
void init_cpp_extension(nb::module_& m);
// backends.cpp (ember._C._backends), nn_init.cpp (ember._C._nn_init), nn_utils.cpp
// (ember._C._nn_utils).
void init_backends(nb::module_& m);
void init_nn_init(nb::module_& m);
void init_nn_utils(nb::module_& m);
// checkpoint.cpp (ember._C._checkpoint).
void init_checkpoint(nb::module_& m);
// hooks.cpp: true while ember.autograd.grad runs on this thread.
extern thread_local bool t_in_autograd_grad;
// buffer.cpp: the buffer protocol.
int tensor_getbuffer(PyObject* self, Py_buffer* view, int flags);
void tensor_releasebuffer(PyObject* self, Py_buffer* view);
// hooks.cpp / python_function.cpp: visit the Python objects that `t` alone keeps through its
// autograd graph (for the garbage collector; gc.cpp).
int visit_tensor_hooks(const Tensor& t, visitproc visit, void* arg);
int visit_python_function(const autograd::Node* node, visitproc visit, void* arg);
// gc.cpp: the Tensor class's type slots (buffer protocol, garbage collection).
const PyType_Slot* tensor_type_slots();

// dtype.cpp: the one Python object of each dtype (ember.float32 is ember.float).
nb::object dtype_object(ScalarType t);
// A dtype argument: an ember dtype; None gives nullopt.
std::optional<ScalarType> dtype_arg(nb::handle h);
// device.cpp: a device argument: an ember.device, "cuda:1", or a CUDA ordinal; None: nullopt.
std::optional<Device> device_arg(nb::handle h);
// tensor.cpp: ember.Size(...) of a shape (the class comes from ember/_size.py at import).
nb::object make_size(IntArrayRef sizes);
// Sizes given as f(2, 3) or f((2, 3)) / f([2, 3]) / f(ember.Size(...)); `what` names the caller.
std::vector<int64_t> sizes_from_args(const nb::args& args, const char* what);
// An int or a sequence of ints (dim=1 or dim=(0, 1)).
std::vector<int64_t> int_list(nb::handle h, const char* what);
// Tensor options from the keyword arguments of a factory.
TensorOptions options_from(nb::handle dtype, nb::handle device, bool requires_grad);
// A returned tensor; an undefined one (no .grad) is None.
nb::object tensor_or_none(const Tensor& t);
// Python's repr of a tensor with ember's module name.
std::string tensor_repr(const Tensor& t);
// return_types.cpp: ember.return_types.<name>(values=..., indices=...) of max(dim), sort, topk;
// several tensors as a tuple, as PyTorch returns them.
nb::object values_indices(const char* name, std::tuple<Tensor, Tensor> r);
nb::tuple tuple_of(std::vector<Tensor> ts);

// f() without the GIL; its result becomes Python objects after the GIL is back (a new object may
// start a collection): several tensors as a tuple, a (values, indices) pair as return_types.name.
template <typename F>
nb::tuple tensors_without_gil(F&& f) {
  std::vector<Tensor> r;
  {
    nb::gil_scoped_release release;
    r = f();
  }
  return tuple_of(std::move(r));
}
template <typename F>
nb::object pair_without_gil(const char* name, F&& f) {
  std::tuple<Tensor, Tensor> r;
  {
    nb::gil_scoped_release release;
    r = f();
  }
  return values_indices(name, std::move(r));
}

// Binds one op's two spellings at once: f as ember.name(input, ...) and as Tensor.name(...).
template <typename F, typename... Extra>
void both(nb::module_& m, nb::class_<Tensor>& cls, const char* name, F f, const Extra&... extra) {
  m.def(name, f, "input"_a, extra...);
  cls.def(name, f, extra...);
}

// x.op_(...) returning x itself (the same Python object), as PyTorch does; f runs without the GIL.
template <typename F>
nb::object inplace(nb::handle self, F&& f) {
  const Tensor& t = nb::cast<const Tensor&>(self);
  {
    nb::gil_scoped_release release;
    f(t);
  }
  return nb::borrow(self);
}

// The in-place method Tensor::name_ as a Python method x.name_(a...) returning x itself (the op
// table's in-place rows); A are the arguments after self.
template <typename M, typename... A>
auto inplace_method(M method) {
  return [method](nb::handle self, A... a) {
    const Tensor& t = nb::cast<const Tensor&>(self);
    {
      nb::gil_scoped_release release;
      (t.*method)(a...);
    }
    return nb::borrow(self);
  };
}

}  // namespace ember::python

// Python bool, int and float (and, when converting, numpy scalars) as ember::Scalar; a Scalar
// comes back as the Python number of its kind.
namespace nanobind::detail {
template <>
struct type_caster<ember::Scalar> {
  NB_TYPE_CASTER(ember::Scalar, const_name("float | int | bool"))
  bool from_python(handle src, uint8_t flags, cleanup_list*) noexcept {
    PyObject* o = src.ptr();
    if (PyBool_Check(o)) {
      value = ember::Scalar(o == Py_True);
      return true;
    }
    if (PyFloat_Check(o)) {
      value = ember::Scalar(PyFloat_AS_DOUBLE(o));
      return true;
    }
    if (PyLong_Check(o)) return from_long(o);
    if (!(flags & static_cast<uint8_t>(cast_flags::convert)) ||
        nb::inst_check(src))  // a Tensor is never taken as a number here
      return false;
    if (PyIndex_Check(o)) {
      PyObject* i = PyNumber_Index(o);
      if (!i) return PyErr_Clear(), false;
      bool ok = from_long(i);
      Py_DECREF(i);
      return ok;
    }
    if (PyNumber_Check(o)) {
      double d = PyFloat_AsDouble(o);
      if (d == -1.0 && PyErr_Occurred()) return PyErr_Clear(), false;
      value = ember::Scalar(d);
      return true;
    }
    return false;
  }
  static handle from_cpp(const ember::Scalar& s, rv_policy, cleanup_list*) noexcept {
    if (s.isBoolean()) return PyBool_FromLong(s.toBool());
    if (s.isFloatingPoint()) return PyFloat_FromDouble(s.toDouble());
    return PyLong_FromLongLong(s.toLong());
  }

 private:
  bool from_long(PyObject* o) noexcept {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) return PyErr_Clear(), false;
    value = ember::Scalar(static_cast<int64_t>(v));
    return true;
  }
};
}  // namespace nanobind::detail
