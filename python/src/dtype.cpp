// ember.dtype: one Python object per ScalarType, printing as PyTorch's (ember.float32), with
// PyTorch's module attribute names and aliases (ember.float is ember.float32).
#include <array>
#include <cstring>
#include <string>

#include "common.h"

namespace ember::python {
namespace {

struct DType {
  ScalarType type;
};

constexpr int kNumTypes = static_cast<int>(ScalarType::NumTypes);
// Borrowed from the module's attributes, which keep them alive.
std::array<PyObject*, kNumTypes> g_dtypes{};

std::string ember_name(ScalarType t) {
  std::string n = python_name(t);  // "torch.float32"
  return "ember" + n.substr(n.find('.'));
}

}  // namespace

nb::object dtype_object(ScalarType t) {
  int i = static_cast<int>(t);
  EMBER_CHECK(i >= 0 && i < kNumTypes && g_dtypes[i], Error, "no Python dtype for ScalarType ", i);
  return nb::borrow(g_dtypes[i]);
}

std::optional<ScalarType> dtype_arg(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  if (nb::isinstance<DType>(h)) return nb::cast<DType>(h).type;
  // Python's float, int and bool stand for float64, int64 and bool, as in PyTorch.
  if (h.is(reinterpret_cast<PyObject*>(&PyFloat_Type))) return kDouble;
  if (h.is(reinterpret_cast<PyObject*>(&PyLong_Type))) return kLong;
  if (h.is(reinterpret_cast<PyObject*>(&PyBool_Type))) return kBool;
  throw ArgumentTypeError(std::string("dtype must be an ember.dtype, got ") +
                          nb::type_name(h.type()).c_str());
}

void init_dtype(nb::module_& m) {
  nb::class_<DType>(m, "dtype")
      .def("__repr__", [](const DType& d) { return ember_name(d.type); })
      .def("__eq__",
           [](const DType& a, nb::handle b) {
             return nb::isinstance<DType>(b) && nb::cast<DType>(b).type == a.type;
           })
      .def("__hash__", [](const DType& d) { return static_cast<int>(d.type); })
      .def_prop_ro("is_floating_point", [](const DType& d) { return is_floating_point(d.type); })
      .def_prop_ro("is_signed", [](const DType& d) { return d.type != kByte && d.type != kBool; })
      .def_prop_ro("itemsize", [](const DType& d) { return element_size(d.type); });

  struct Name {
    const char* name;
    ScalarType type;
  };
  // PyTorch's names of each dtype; the first is the canonical one.
  const Name names[] = {
      {"uint8", kByte},     {"int8", kChar},     {"int16", kShort},   {"short", kShort},
      {"int32", kInt},      {"int", kInt},       {"int64", kLong},    {"long", kLong},
      {"float16", kHalf},   {"half", kHalf},     {"float32", kFloat}, {"float", kFloat},
      {"float64", kDouble}, {"double", kDouble}, {"bool", kBool},     {"bfloat16", kBFloat16},
  };
  for (const Name& n : names) {
    int i = static_cast<int>(n.type);
    if (!g_dtypes[i]) {
      nb::object o = nb::cast(DType{n.type});
      m.attr(n.name) = o;
      g_dtypes[i] = o.ptr();
    } else {
      m.attr(n.name) = nb::borrow(g_dtypes[i]);
    }
  }
  m.def("get_default_dtype", [] { return dtype_object(get_default_dtype()); });
  m.def("set_default_dtype", [](nb::handle d) {
    auto t = dtype_arg(d);
    EMBER_CHECK(t && (*t == kFloat || *t == kDouble), ArgumentTypeError,
                "only floating-point types are supported as the default type");
    set_default_dtype(*t);
  });
}

}  // namespace ember::python
