// The safetensors reader and writer (include/ember/serialize.h) under ember.save / ember.load
// (ember/serialization.py, which maps Python objects to named tensors and a structure string).
// Files are written atomically by the C++ side; every read is validated there, and a bad file
// raises naming it.
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>

#include "common.h"

namespace ember::python {

void init_serialize(nb::module_& m) {
  m.def(
      "_save_file",
      [](const NamedTensors& tensors, const std::string& path, const TensorMetadata& metadata) {
        nb::gil_scoped_release release;
        save(tensors, path, metadata);
      },
      "tensors"_a, "path"_a, "metadata"_a);
  m.def(
      "_save_bytes",
      [](const NamedTensors& tensors, const TensorMetadata& metadata) {
        std::string bytes;
        {
          nb::gil_scoped_release release;
          bytes = safetensors::save(tensors, metadata);
        }
        return nb::bytes(bytes.data(), bytes.size());
      },
      "tensors"_a, "metadata"_a);
  // (tensors by name, metadata) of a file.
  m.def(
      "_load_file",
      [](const std::string& path) {
        nb::gil_scoped_release release;
        auto tensors = load(path);
        return std::make_pair(std::move(tensors), load_metadata(path));
      },
      "path"_a);
  m.def(
      "_load_bytes",
      [](nb::bytes data, const std::string& name) {
        std::string bytes(data.c_str(), data.size());
        nb::gil_scoped_release release;
        return safetensors::load(bytes, name);
      },
      "data"_a, "name"_a);
}

}  // namespace ember::python
