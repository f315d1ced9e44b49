// ember._C._raw_kernel: ember::cuda::RawKernel (include/ember/cuda_kernel.h) for
// ember.cuda.RawKernel (ember/cuda/_raw_kernel.py), which checks the grid and block, types
// numpy scalars and (value, dtype) pairs, and picks the stream. Arguments arrive here as tensors,
// Python bool/int/float, or (type name, number) pairs.
#include <nanobind/stl/tuple.h>

#include <limits>
#include <string>
#include <tuple>
#include <type_traits>

#include "common.h"
#include "ember/cuda_kernel.h"

namespace ember::python {
namespace {

using Dim = std::tuple<unsigned, unsigned, unsigned>;

// `value` as the C type `type` of argument i, or a TypeError naming both.
template <typename T>
T number(nb::handle value, const char* type, size_t i) {
  PyObject* o = value.ptr();
  bool ok = false;
  T out{};
  if constexpr (std::is_same_v<T, bool>) {
    ok = PyBool_Check(o) || PyLong_Check(o);
    if (ok) out = PyObject_IsTrue(o) == 1;
  } else if constexpr (std::is_floating_point_v<T>) {
    const double d = PyFloat_AsDouble(o);
    ok = !(d == -1.0 && PyErr_Occurred());
    out = static_cast<T>(d);
  } else if constexpr (std::is_signed_v<T>) {
    int overflow = 0;
    const long long v = PyLong_Check(o) ? PyLong_AsLongLongAndOverflow(o, &overflow) : 0;
    ok = PyLong_Check(o) && !overflow && !(v == -1 && PyErr_Occurred()) &&
         v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
    out = static_cast<T>(v);
  } else {
    const unsigned long long v = PyLong_Check(o) ? PyLong_AsUnsignedLongLong(o) : 0;
    ok = PyLong_Check(o) && !(v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) &&
         v <= std::numeric_limits<T>::max();
    out = static_cast<T>(v);
  }
  if (!ok) {
    PyErr_Clear();
    throw ArgumentTypeError("RawKernel: argument " + std::to_string(i) + " (" +
                            nb::cast<std::string>(nb::repr(value)) + ") cannot be passed as " +
                            type + " (out of range, or not a number)");
  }
  return out;
}

cuda::KernelArg typed_scalar(const std::string& type, nb::handle value, size_t i) {
  if (!nb::isinstance<Tensor>(value)) {
    if (type == "int32") return number<int32_t>(value, "int32", i);
    if (type == "int64") return number<int64_t>(value, "int64", i);
    if (type == "uint32") return number<uint32_t>(value, "uint32", i);
    if (type == "uint64") return number<uint64_t>(value, "uint64", i);
    if (type == "float32") return number<float>(value, "float32", i);
    if (type == "float64") return number<double>(value, "float64", i);
    if (type == "bool") return number<bool>(value, "bool", i);
  }
  throw ArgumentTypeError("RawKernel: argument " + std::to_string(i) + " (of type " +
                          nb::type_name(value.type()).c_str() + ") is typed as " + type +
                          "; a typed scalar is a number of int32, int64, uint32, uint64, float32, "
                          "float64 or bool");
}

cuda::KernelArg kernel_arg(nb::handle h, size_t i) {
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h);
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return o == Py_True;
  if (PyLong_Check(o)) return number<int64_t>(h, "int64", i);  // CuPy's rule: int is int64
  if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o);           // and a float is double
  if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 2 && PyUnicode_Check(PyTuple_GET_ITEM(o, 0)))
    return typed_scalar(nb::cast<std::string>(nb::handle(PyTuple_GET_ITEM(o, 0))),
                        nb::handle(PyTuple_GET_ITEM(o, 1)), i);
  throw ArgumentTypeError(
      "RawKernel: argument " + std::to_string(i) + " is a " + nb::type_name(h.type()).c_str() +
      "; pass an ember tensor, a Python bool, int or float, a numpy scalar or a "
      "(value, ember dtype) pair");
}

}  // namespace

void init_raw_kernel(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_raw_kernel", "ember.cuda.RawKernel's compiled half");
  nb::class_<cuda::RawKernel>(m, "_RawKernel")
      .def(
          "__init__",
          [](cuda::RawKernel* self, std::string source, std::string name,
             std::vector<std::string> options) {
            cuda::RawKernelOptions o;
            o.compile_options = std::move(options);
            new (self) cuda::RawKernel(std::move(source), std::move(name), std::move(o));
          },
          "source"_a, "name"_a, "options"_a)
      .def_prop_ro("name", &cuda::RawKernel::name)
      .def(
          "launch",
          [](const cuda::RawKernel& k, Dim grid, Dim block, nb::sequence args, size_t shared_mem) {
            std::vector<cuda::KernelArg> a;
            size_t i = 0;
            for (nb::handle h : args) a.push_back(kernel_arg(h, i++));
            nb::gil_scoped_release release;  // the first launch compiles
            k({std::get<0>(grid), std::get<1>(grid), std::get<2>(grid)},
              {std::get<0>(block), std::get<1>(block), std::get<2>(block)}, a, shared_mem);
          },
          "grid"_a, "block"_a, "args"_a, "shared_mem"_a)
      .def_static("compilations", &cuda::RawKernel::compilations)
      .def_static("cache_dir", &cuda::RawKernel::cache_dir);
}

}  // namespace ember::python
