// The checkpoint readers and writers under ember.save / ember.load (ember/serialization.py):
// safetensors (include/ember/serialize.h; Python maps objects to named tensors and a structure
// string) and PyTorch's zip format (include/ember/serialize_pt.h; the object tree is converted
// here, to and from PtValue). Files are written atomically by the C++ side; every read is
// validated there, and a bad file raises naming it.
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>

#include <unordered_map>

#include "common.h"
#include "ember/serialize_pt.h"

namespace ember::python {
namespace {

// A pickle that Ember refuses raises pickle.UnpicklingError, as torch.load(weights_only=True) does
// for one it refuses; a damaged archive RuntimeError, as in PyTorch.
template <typename F>
PtValue load_or_raise_unpickling_error(F&& load) {
  try {
    nb::gil_scoped_release release;
    return load();
  } catch (const UnpicklingError& e) {
    nb::object error = nb::module_::import_("pickle").attr("UnpicklingError");
    PyErr_SetString(error.ptr(), e.what());
    throw nb::python_error();
  }
}

// PtValue -> Python. `make_tensor(tensor, location, requires_grad, is_parameter)` places each
// tensor (map_location, Parameter); a node met twice gives the same Python object.
class ToPython {
 public:
  explicit ToPython(nb::handle make_tensor)
      : make_tensor_(make_tensor),
        ordered_dict_(nb::module_::import_("collections").attr("OrderedDict")) {}

  nb::object convert(const PtValue& v) {
    auto it = done_.find(&v);
    if (it != done_.end()) return it->second;
    nb::object out = make(v);
    done_.emplace(&v, out);
    return out;
  }

 private:
  nb::object make(const PtValue& v) {
    using Kind = PtValue::Kind;
    switch (v.kind) {
      case Kind::None:
        return nb::none();
      case Kind::Bool:
        return nb::bool_(v.boolean);
      case Kind::Int:
        return nb::int_(v.integer);
      case Kind::Float:
        return nb::float_(v.floating);
      case Kind::String:
        return nb::str(v.string.data(), v.string.size());
      case Kind::Device:
        return nb::cast(Device(v.string));
      case Kind::Dtype:
        return dtype_object(v.dtype);
      case Kind::Tensor:
        return make_tensor_(v.tensor, v.location, v.requires_grad, v.is_parameter);
      case Kind::List: {
        nb::list l;
        for (const auto& x : v.items) l.append(convert(*x));
        return l;
      }
      case Kind::Tuple: {
        nb::list l;
        for (const auto& x : v.items) l.append(convert(*x));
        if (v.is_size) return nb::module_::import_("ember._size").attr("Size")(nb::tuple(l));
        return nb::tuple(l);
      }
      case Kind::Dict: {
        nb::object d = v.ordered ? ordered_dict_() : nb::dict();
        for (const auto& [k, x] : v.entries) d[convert(*k)] = convert(*x);
        return d;
      }
    }
    return nb::none();
  }

  nb::handle make_tensor_;
  nb::object ordered_dict_;
  std::unordered_map<const PtValue*, nb::object> done_;
};

// Python -> PtValue, for ember.save to a .pt file. A tensor object met twice is one node.
class FromPython {
 public:
  FromPython() : ordered_dict_(nb::module_::import_("collections").attr("OrderedDict")) {}

  PtValuePtr convert(nb::handle obj, const std::string& at, int depth) {
    if (depth > 200) {
      throw ValueError("ember.save: the object is nested more than 200 levels deep (at obj" + at +
                       ")");
    }
    if (obj.is_none()) return pt_none();
    if (nb::isinstance<nb::bool_>(obj)) return pt_bool(nb::cast<bool>(obj));
    if (nb::isinstance<nb::int_>(obj)) {
      int64_t v = 0;
      if (!nb::try_cast<int64_t>(obj, v)) {
        throw ValueError("ember.save: the int at obj" + at + " does not fit in 64 bits");
      }
      return pt_int(v);
    }
    if (nb::isinstance<nb::float_>(obj)) return pt_float(nb::cast<double>(obj));
    if (nb::isinstance<nb::str>(obj)) return pt_string(nb::cast<std::string>(obj));
    if (nb::isinstance<Tensor>(obj)) {
      auto it = tensors_.find(obj.ptr());
      if (it != tensors_.end()) return it->second;
      PtValue v = *pt_tensor(nb::cast<Tensor>(obj));
      v.is_parameter = type_is(obj, "Parameter");
      auto node = std::make_shared<const PtValue>(std::move(v));
      keep_.push_back(nb::borrow(obj));
      tensors_.emplace(obj.ptr(), node);
      return node;
    }
    if (nb::isinstance<Device>(obj)) {
      PtValue v;
      v.kind = PtValue::Kind::Device;
      v.string = nb::cast<Device>(obj).str();
      return std::make_shared<const PtValue>(std::move(v));
    }
    if (std::optional<ScalarType> t = dtype_arg_or_none(obj)) {
      PtValue v;
      v.kind = PtValue::Kind::Dtype;
      v.dtype = *t;
      return std::make_shared<const PtValue>(std::move(v));
    }
    if (nb::isinstance<nb::dict>(obj)) {
      PtValue v;
      v.kind = PtValue::Kind::Dict;
      v.ordered = nb::isinstance(obj, ordered_dict_);
      for (auto [k, x] : nb::borrow<nb::dict>(obj)) {
        const std::string key = nb::cast<std::string>(nb::repr(k));
        v.entries.emplace_back(convert(k, at + "<key " + key + ">", depth + 1),
                               convert(x, at + "[" + key + "]", depth + 1));
      }
      return std::make_shared<const PtValue>(std::move(v));
    }
    if (nb::isinstance<nb::list>(obj) || nb::isinstance<nb::tuple>(obj)) {
      PtValue v;
      v.kind = nb::isinstance<nb::list>(obj) ? PtValue::Kind::List : PtValue::Kind::Tuple;
      v.is_size = type_is(obj, "Size");
      size_t i = 0;
      for (nb::handle x : obj) {
        v.items.push_back(convert(x, at + "[" + std::to_string(i++) + "]", depth + 1));
      }
      return std::make_shared<const PtValue>(std::move(v));
    }
    throw ArgumentTypeError(
        "ember.save cannot store an object of type " +
        nb::cast<std::string>(obj.type().attr("__name__")) + " (at obj" + at +
        ") in a PyTorch file: it holds tensors, and around them dicts, OrderedDicts, "
        "lists, tuples, numbers, strings, None, dtypes and devices (the objects "
        "torch.load(weights_only=True) accepts)");
  }

 private:
  static bool type_is(nb::handle obj, const char* name) {
    return nb::cast<std::string>(obj.type().attr("__name__")) == name;
  }
  std::optional<ScalarType> dtype_arg_or_none(nb::handle obj) const {
    if (!obj.type().is(dtype_type_)) return std::nullopt;
    return dtype_arg(obj);
  }
  nb::handle dtype_type_ = dtype_object(kFloat).type();
  nb::object ordered_dict_;
  std::unordered_map<PyObject*, PtValuePtr> tensors_;
  std::vector<nb::object> keep_;  // the tensors keyed by address stay alive while converting
};

}  // namespace

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

  // ember.load of a PyTorch file: the object, with make_tensor placing each tensor.
  m.def(
      "_load_pt_file",
      [](const std::string& path, nb::handle make_tensor) {
        const PtValue v = load_or_raise_unpickling_error([&] { return load_pt_object(path); });
        return ToPython(make_tensor).convert(v);
      },
      "path"_a, "make_tensor"_a);
  m.def(
      "_load_pt_bytes",
      [](nb::bytes data, const std::string& name, nb::handle make_tensor) {
        std::string bytes(data.c_str(), data.size());
        const PtValue v =
            load_or_raise_unpickling_error([&] { return load_pt_object_bytes(bytes, name); });
        return ToPython(make_tensor).convert(v);
      },
      "data"_a, "name"_a, "make_tensor"_a);
  m.def(
      "_save_pt_file",
      [](nb::handle obj, const std::string& path) {
        PtValuePtr v = FromPython().convert(obj, "", 0);
        nb::gil_scoped_release release;
        save_pt(*v, path);
      },
      "obj"_a, "path"_a);
  m.def(
      "_save_pt_bytes",
      [](nb::handle obj) {
        PtValuePtr v = FromPython().convert(obj, "", 0);
        std::string bytes;
        {
          nb::gil_scoped_release release;
          bytes = save_pt_bytes(*v);
        }
        return nb::bytes(bytes.data(), bytes.size());
      },
      "obj"_a);
}

}  // namespace ember::python
