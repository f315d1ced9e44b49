// ember._C._cpp_extension: the compiled half of ember.utils.cpp_extension.load_inline
// (ember/utils/cpp_extension.py). The Python half writes the source (the user's, then one entry
// per function, include/ember/cpp_extension_python.h); here ember::cpp_extension::load_inline
// compiles and loads it, and each entry becomes a callable that turns Python arguments into
// Values, calls the C++ function with the GIL released, and turns its result back.
#include <memory>
#include <string>
#include <vector>

#include "common.h"
#include "ember/cpp_extension.h"
#include "ember/cpp_extension_python.h"

namespace ember::python {
namespace {

namespace ext = ember::cpp_extension;
using ext::python::Value;

struct ExtensionFunction {
  std::shared_ptr<ext::Extension> extension;  // keeps the library's handle
  ext::python::Entry* entry = nullptr;
  std::string name, signature;
};

bool is_int(PyObject* o) {
  return PyLong_Check(o) && !PyBool_Check(o);
}

int64_t int_value(nb::handle h, const std::string& fn, size_t i) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  if (overflow || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    throw ArgumentTypeError(fn + "(): argument " + std::to_string(i + 1) +
                            " is an int outside the 64-bit range");
  }
  return v;
}

Value list_value(nb::handle h, const std::string& fn, size_t i) {
  nb::sequence seq = nb::borrow<nb::sequence>(h);
  const size_t n = nb::len(seq);
  if (n == 0) return std::vector<int64_t>{};
  nb::handle first = seq[0];
  if (nb::isinstance<Tensor>(first)) {
    std::vector<Tensor> out;
    for (nb::handle e : seq) {
      EMBER_CHECK(nb::isinstance<Tensor>(e), ArgumentTypeError, fn, "(): argument ", i + 1,
                  " mixes tensors with other values");
      out.push_back(nb::cast<Tensor>(e));
    }
    return out;
  }
  bool all_int = true;
  for (nb::handle e : seq) all_int = all_int && is_int(e.ptr());
  if (all_int) {
    std::vector<int64_t> out;
    for (nb::handle e : seq) out.push_back(int_value(e, fn, i));
    return out;
  }
  std::vector<double> out;
  for (nb::handle e : seq) {
    EMBER_CHECK(PyFloat_Check(e.ptr()) || is_int(e.ptr()), ArgumentTypeError, fn, "(): argument ",
                i + 1, " is a list of ", nb::type_name(e.type()).c_str(),
                "; lists of tensors, ints or floats can be passed");
    out.push_back(nb::cast<double>(e));
  }
  return out;
}

Value to_value(nb::handle h, const std::string& fn, size_t i) {
  PyObject* o = h.ptr();
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h);
  if (o == Py_None) return std::monostate{};
  if (PyBool_Check(o)) return o == Py_True;
  if (PyLong_Check(o)) return int_value(h, fn, i);
  if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o);
  if (PyUnicode_Check(o)) return nb::cast<std::string>(h);
  if (PyList_Check(o) || PyTuple_Check(o)) return list_value(h, fn, i);
  // numpy scalars and other numbers: integers by __index__, the rest by __float__.
  if (PyIndex_Check(o)) {
    nb::object n = nb::steal(PyNumber_Index(o));
    if (n.is_valid()) return int_value(n, fn, i);
    PyErr_Clear();
  }
  if (PyNumber_Check(o)) {
    const double d = PyFloat_AsDouble(o);
    if (!(d == -1.0 && PyErr_Occurred())) return d;
    PyErr_Clear();
  }
  throw ArgumentTypeError(
      fn + "(): argument " + std::to_string(i + 1) + " is a " + nb::type_name(h.type()).c_str() +
      ", which an extension function cannot take (tensors, numbers, str, lists)");
}

nb::object from_value(const Value& v) {
  return std::visit(
      [](const auto& x) -> nb::object {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>)
          return nb::none();
        else if constexpr (std::is_same_v<X, Tensor>)
          return tensor_or_none(x);
        else if constexpr (std::is_same_v<X, std::vector<Tensor>>) {
          nb::list out;
          for (const Tensor& t : x) out.append(tensor_or_none(t));
          return out;
        } else
          return nb::cast(x);
      },
      v);
}

}  // namespace

void init_cpp_extension(nb::module_& parent) {
  nb::module_ m =
      parent.def_submodule("_cpp_extension", "ember.utils.cpp_extension's compiled half");
  nb::class_<ExtensionFunction>(m, "_Function")
      .def_ro("name", &ExtensionFunction::name)
      .def_ro("signature", &ExtensionFunction::signature)
      .def("__call__", [](const ExtensionFunction& f, nb::args args) {
        std::vector<Value> values;
        values.reserve(args.size());
        for (size_t i = 0; i < args.size(); ++i) values.push_back(to_value(args[i], f.name, i));
        ext::python::Result result;
        {
          nb::gil_scoped_release release;
          f.entry(values, result);
          values.clear();  // the tensors' references go without Python
        }
        if (!result.tuple) return from_value(result.values.at(0));
        nb::list out;
        for (const Value& v : result.values) out.append(from_value(v));
        return nb::steal(PyList_AsTuple(out.ptr()));
      });
  // Compiles (or takes from the cache) `source`, which defines ember_py_entry_<f> and
  // ember_py_signature_<f> for each of `functions` (C symbols, as load_inline.cpp names them),
  // and returns one callable per function.
  m.def(
      "load",
      [](std::string name, std::string source, std::vector<std::string> functions,
         std::vector<std::string> symbols, std::vector<std::string> cflags,
         std::vector<std::string> ldflags, std::string build_directory, bool verbose) {
        ext::LoadOptions o;
        o.extra_cflags = std::move(cflags);
        o.extra_ldflags = std::move(ldflags);
        o.build_directory = std::move(build_directory);
        o.verbose = verbose;
        std::vector<std::string> exports;
        for (const std::string& s : symbols) {
          exports.push_back("ember_py_entry_" + s);
          exports.push_back("ember_py_signature_" + s);
        }
        std::shared_ptr<ext::Extension> e;
        {
          nb::gil_scoped_release release;
          e = std::make_shared<ext::Extension>(ext::load_inline(name, source, exports, o));
        }
        nb::list out;
        for (size_t i = 0; i < functions.size(); ++i) {
          ExtensionFunction f;
          f.extension = e;
          f.entry = e->get<ext::python::Entry>("ember_py_entry_" + symbols[i]);
          f.name = functions[i];
          f.signature = e->get<const char*()>("ember_py_signature_" + symbols[i])();
          out.append(nb::cast(std::move(f)));
        }
        return nb::make_tuple(e->library_path(), out);
      },
      "name"_a, "source"_a, "functions"_a, "symbols"_a, "cflags"_a, "ldflags"_a,
      "build_directory"_a, "verbose"_a);
}

}  // namespace ember::python
