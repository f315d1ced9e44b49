// ember._C._raw_kernel: ember::cuda::RawKernel (include/ember/cuda_kernel.h) for
// ember.cuda.RawKernel (ember/cuda/_raw_kernel.py), which checks the grid and block, types
// numpy scalars and (value, dtype) pairs, and picks the stream. Arguments arrive here as tensors,
// Python bool/int/float, or (type name, number) pairs.
#include <nanobind/stl/tuple.h>

#include <string>
#include <tuple>

#include "common.h"
#include "ember/cuda_kernel.h"

namespace ember::python {
namespace {

using Dim = std::tuple<unsigned, unsigned, unsigned>;

cuda::KernelArg typed_scalar(const std::string& type, nb::handle value, size_t i) {
  if (type == "int32") return nb::cast<int32_t>(value);
  if (type == "int64") return nb::cast<int64_t>(value);
  if (type == "uint32") return nb::cast<uint32_t>(value);
  if (type == "uint64") return nb::cast<uint64_t>(value);
  if (type == "float32") return nb::cast<float>(value);
  if (type == "float64") return nb::cast<double>(value);
  if (type == "bool") return nb::cast<bool>(value);
  throw ArgumentTypeError(
      "RawKernel: argument " + std::to_string(i) + " has type " + type +
      ", which a kernel argument cannot have (int32, int64, uint32, uint64, float32, "
      "float64 or bool)");
}

cuda::KernelArg kernel_arg(nb::handle h, size_t i) {
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h);
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return o == Py_True;
  if (PyLong_Check(o)) return nb::cast<int64_t>(h);   // CuPy's rule: a Python int is int64
  if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o);  // and a float is double
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
