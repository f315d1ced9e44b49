// ember.device: PyTorch's torch.device (device("cuda:1"), device("cuda", 1), .type, .index,
// equality, hashing, repr device(type='cuda', index=1), str "cuda:1").
#include <nanobind/operators.h>

#include <string>

#include "common.h"

namespace ember::python {
namespace {

Device from_ordinal(int64_t i) {
  EMBER_CHECK(i >= 0, Error, "Device index must not be negative, got ", i);
  return Device(kCUDA, i);
}

std::string device_repr(const Device& d) {
  std::string s = "device(type='" + device_type_name(d.type()) + "'";
  if (d.has_index()) s += ", index=" + std::to_string(d.index());
  return s + ")";
}

}  // namespace

std::optional<Device> device_arg(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  if (nb::isinstance<Device>(h)) return nb::cast<Device>(h);
  if (nb::isinstance<nb::str>(h)) return Device(nb::cast<std::string>(h));
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) return from_ordinal(nb::cast<int64_t>(h));
  throw ArgumentTypeError(
      std::string("expected an ember.device, a string or an int as device, got ") +
      nb::type_name(h.type()).c_str());
}

void init_device(nb::module_& m) {
  nb::class_<Device>(m, "device")
      .def(nb::init<const std::string&>(), "type"_a)
      .def(
          "__init__",
          [](Device* self, const std::string& type, int64_t index) {
            EMBER_CHECK(index >= 0, Error, "Device index must not be negative, got ", index);
            Device d(type);
            EMBER_CHECK(!d.has_index(), ValueError,
                        "type (string) must not include an index because index was passed "
                        "explicitly: ",
                        type);
            new (self) Device(d.type(), index);
          },
          "type"_a, "index"_a)
      .def("__init__", [](Device* self, const Device& d) { new (self) Device(d); })
      .def("__init__", [](Device* self, int64_t i) { new (self) Device(from_ordinal(i)); })
      .def_prop_ro("type", [](const Device& d) { return device_type_name(d.type()); })
      .def_prop_ro("index",
                   [](const Device& d) -> std::optional<int> {
                     if (!d.has_index()) return std::nullopt;
                     return d.index();
                   })
      .def("__repr__", &device_repr)
      .def("__str__", &Device::str)
      .def(nb::self == nb::self)
      .def(nb::self != nb::self)
      .def("__hash__",
           [](const Device& d) { return static_cast<int64_t>(d.type()) * 1031 + d.index(); })
      .def("__reduce__", [](const Device& d) {
        return nb::make_tuple(nb::type<Device>(), nb::make_tuple(d.str()));
      });
}

}  // namespace ember::python
