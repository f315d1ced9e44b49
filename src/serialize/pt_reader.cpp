// ember::load_pt: torch.save's zip format. The archive holds <prefix>/data.pkl (the object, as a
// pickle whose tensors refer to storages by persistent id), <prefix>/data/<key> (each storage's
// raw bytes), and <prefix>/byteorder ("little" or "big"; absent before PyTorch 2.0: little).
// PyTorchHooks is the allowlist: the only globals, calls and persistent ids a file may use.
#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <unordered_map>

#include "core/tensor_factory.h"
#include "ember/serialize_pt.h"
#include "serialize/pickle_reader.h"
#include "serialize/posix_file.h"
#include "serialize/pt_format.h"
#include "serialize/zip_archive.h"

namespace ember {
namespace {

using pickle::Node;
using pickle::NodePtr;
using Kind = PtValue::Kind;

bool is_global(const Node& n, const char* module, const char* name) {
  return n.kind == Node::Kind::Global && n.module == module && n.name == name;
}

// Reverses the bytes of every element (a file written on a big-endian machine).
void swap_bytes(void* data, size_t nbytes, size_t element) {
  if (element == 1) return;
  auto* b = static_cast<unsigned char*>(data);
  for (size_t i = 0; i + element <= nbytes; i += element) std::reverse(b + i, b + i + element);
}

// Any byte but 0 or 1 would be an invalid C++ bool: read it as true.
void normalise_bools(Tensor& s) {
  if (s.scalar_type() != kBool) return;
  auto* b = static_cast<unsigned char*>(s.data_ptr());
  for (size_t i = 0; i < s.nbytes(); ++i) b[i] = b[i] != 0;
}

// The storage `key` of `numel` elements of `dtype`, as a 1-D tensor: from the zip archive's
// record, or (legacy format) allocated now and filled once the data section is reached.
// Throws UnpicklingError (via `fail`) when there is none or its size differs.
using StorageSource =
    std::function<Tensor(const std::string& key, ScalarType dtype, int64_t numel)>;

class PyTorchHooks final : public pickle::PickleHooks {
 public:
  // `pid_items`: 5 in the zip format ('storage', type, key, location, numel); 6 in the legacy
  // format, whose last item (a view of a storage, from before PyTorch 0.4) must be None.
  PyTorchHooks(StorageSource storages, size_t pid_items, std::string file)
      : source_(std::move(storages)), pid_items_(pid_items), file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw UnpicklingError("PyTorch file " + file_ + ": " + what);
  }

  NodePtr global(const std::string& module, const std::string& name) override {
    ScalarType dtype;
    const bool allowed =
        (module == "collections" && name == "OrderedDict") ||
        (module == "torch._utils" &&
         (name == "_rebuild_tensor_v2" || name == "_rebuild_parameter" ||
          name == "_rebuild_parameter_with_state")) ||
        (module == "torch._tensor" && name == "_rebuild_from_type_v2") ||
        (module == "torch" && (name == "Tensor" || name == "device" || name == "Size")) ||
        (module == "torch.nn.parameter" && name == "Parameter") ||
        (module == "torch" && pt_format::storage_dtype(name, dtype));
    if (module == "torch" && pt_format::dtype_from_name(name, dtype)) {
      PtValue v;
      v.kind = Kind::Dtype;
      v.dtype = dtype;
      return pickle::make_value(std::move(v));
    }
    if (!allowed) {
      fail("its pickle refers to the global " + module + "." + name +
           ", which is not one a weights file needs (tensors, storages, OrderedDict, "
           "torch.device, torch.Size, dtypes); refused without running anything");
    }
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::Global;
    n->module = module;
    n->name = name;
    return n;
  }

  // ('storage', torch.<X>Storage, key, location, numel[, None])
  NodePtr persistent_load(const Node& pid) override {
    const bool shape_ok = pid.kind == Node::Kind::Value && pid.value->kind == Kind::Tuple &&
                          pid.tuple.size() == pid_items_;
    if (!shape_ok) {
      fail("a persistent id is " + pid.describe() + ", not a " + std::to_string(pid_items_) +
           "-tuple ('storage', ...)");
    }
    const auto& t = pid.tuple;
    ScalarType dtype;
    if (!is_string(*t[0]) || t[0]->value->string != "storage") {
      fail("a persistent id does not start with 'storage'");
    }
    if (t[1]->kind != Node::Kind::Global || t[1]->module != "torch" ||
        !pt_format::storage_dtype(t[1]->name, dtype)) {
      fail("a persistent id names " + t[1]->describe() + " as its storage type");
    }
    if (!is_string(*t[2]) || !is_string(*t[3]) || !is_int(*t[4])) {
      fail("a persistent id is not ('storage', type, key: str, location: str, numel: int)");
    }
    const std::string& key = t[2]->value->string;
    auto cached = storages_.find(key);
    if (cached != storages_.end()) {
      if (cached->second->storage.scalar_type() != dtype) {
        fail("storage '" + key + "' is used with two dtypes");
      }
      return cached->second;
    }
    if (pid_items_ == 6 && !is_kind(*t[5], Kind::None)) {
      fail("storage '" + key + "' is a view of another storage (PyTorch before 0.4); refused");
    }
    const int64_t numel = t[4]->value->integer;
    if (numel < 0) fail("storage '" + key + "' has " + std::to_string(numel) + " elements");
    // The device it was saved from, which a loader may restore it to: refused unless it is one,
    // as PyTorch refuses a location it cannot restore.
    const std::string& location = t[3]->value->string;
    try {
      Device check(location);
      (void)check;
    } catch (const Error&) {
      fail("storage '" + key + "' is located on '" + location + "', which is not a device");
    }
    Tensor s = source_(key, dtype, numel);
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::Storage;
    n->storage = std::move(s);
    n->location = t[3]->value->string;
    storages_.emplace(key, n);
    return n;
  }

  NodePtr reduce(const Node& callable, const Node& args) override {
    const auto& a = args.tuple;
    if (is_global(callable, "collections", "OrderedDict")) {
      if (!a.empty()) fail("OrderedDict is called with arguments; only OrderedDict() is allowed");
      PtValue d;
      d.kind = Kind::Dict;
      d.ordered = true;
      return pickle::make_value(std::move(d));
    }
    if (is_global(callable, "torch", "device")) return device(a);
    if (is_global(callable, "torch", "Size")) {
      if (a.size() != 1 || !is_tuple_of_ints(*a[0])) {
        fail("torch.Size is not given a tuple of ints");
      }
      PtValue size = *a[0]->value;
      size.is_size = true;
      return pickle::make_value(std::move(size));
    }
    if (is_global(callable, "torch._utils", "_rebuild_tensor_v2")) return rebuild_tensor(a);
    if (is_global(callable, "torch._utils", "_rebuild_parameter") ||
        is_global(callable, "torch._utils", "_rebuild_parameter_with_state")) {
      const size_t want = callable.name == "_rebuild_parameter" ? 3 : 4;
      if (a.size() != want || !is_tensor(*a[0]) || !is_bool(*a[1])) {
        fail(callable.name + " is not given (tensor, requires_grad, hooks...)");
      }
      PtValue p = *a[0]->value;
      p.is_parameter = true;
      p.requires_grad = a[1]->value->boolean;
      if (p.requires_grad && is_floating_point(p.tensor.scalar_type())) {
        p.tensor.set_requires_grad(true);
      }
      return pickle::make_value(std::move(p));
    }
    if (is_global(callable, "torch._tensor", "_rebuild_from_type_v2")) {
      // (func, type, args, state): func(*args) as an instance of type, with no Python state.
      if (a.size() != 4 || a[0]->kind != Node::Kind::Global || a[2]->value == nullptr ||
          a[2]->value->kind != Kind::Tuple) {
        fail("_rebuild_from_type_v2 is not given (func, type, args, state)");
      }
      const bool parameter = is_global(*a[1], "torch.nn.parameter", "Parameter");
      if (!parameter && !is_global(*a[1], "torch", "Tensor")) {
        fail("_rebuild_from_type_v2 makes a " + a[1]->describe() + ", not a Tensor or Parameter");
      }
      const Node& state = *a[3];
      const bool no_state = state.kind == Node::Kind::Value &&
                            (state.value->kind == Kind::None ||
                             (state.value->kind == Kind::Dict && state.value->entries.empty()));
      if (!no_state) fail("_rebuild_from_type_v2 gives the tensor Python state; refused");
      NodePtr t = reduce(*a[0], *a[2]);
      if (parameter) {
        PtValue p = *t->value;
        p.is_parameter = true;
        return pickle::make_value(std::move(p));
      }
      return t;
    }
    fail("its pickle calls " + callable.describe() + ", which is not allowed");
  }

  void build(Node& obj, const Node& state) override {
    // model.state_dict() carries a _metadata attribute (module versions), set by BUILD on the
    // OrderedDict; Ember's modules need none of it.
    const bool ordered_dict = obj.kind == Node::Kind::Value && obj.value->kind == Kind::Dict &&
                              obj.value->ordered && !obj.sealed;
    const bool dict_state = state.kind == Node::Kind::Value && !state.opaque &&
                            (state.value->kind == Kind::Dict || state.value->kind == Kind::None);
    if (!ordered_dict || !dict_state) {
      fail("its pickle sets the state of " + obj.describe() + " to " + state.describe() +
           "; only an OrderedDict's attributes may be set");
    }
  }

 private:
  static bool is_kind(const Node& n, Kind k) {
    return n.kind == Node::Kind::Value && n.value->kind == k && !n.opaque;
  }
  static bool is_string(const Node& n) { return is_kind(n, Kind::String); }
  static bool is_int(const Node& n) { return is_kind(n, Kind::Int); }
  static bool is_bool(const Node& n) { return is_kind(n, Kind::Bool); }
  static bool is_tensor(const Node& n) { return is_kind(n, Kind::Tensor); }
  static bool is_tuple_of_ints(const Node& n) {
    if (!is_kind(n, Kind::Tuple)) return false;
    return std::all_of(n.value->items.begin(), n.value->items.end(),
                       [](const PtValuePtr& v) { return v->kind == Kind::Int; });
  }

  NodePtr device(const std::vector<NodePtr>& a) {
    const bool ok =
        (a.size() == 1 || a.size() == 2) && is_string(*a[0]) && (a.size() == 1 || is_int(*a[1]));
    if (!ok) fail("torch.device is not given (type[, index])");
    PtValue d;
    d.kind = Kind::Device;
    d.string = a[0]->value->string;
    if (a.size() == 2) d.string.append(":").append(std::to_string(a[1]->value->integer));
    try {
      Device check(d.string);  // refuses what is not a device
      (void)check;
    } catch (const Error&) {
      fail("torch.device('" + d.string + "') is not a device Ember knows");
    }
    return pickle::make_value(std::move(d));
  }

  // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
  NodePtr rebuild_tensor(const std::vector<NodePtr>& a) {
    if ((a.size() != 6 && a.size() != 7) || a[0]->kind != Node::Kind::Storage || !is_int(*a[1]) ||
        !is_tuple_of_ints(*a[2]) || !is_tuple_of_ints(*a[3]) || !is_bool(*a[4])) {
      fail(
          "_rebuild_tensor_v2 is not given (storage, offset, size, stride, requires_grad, "
          "hooks)");
    }
    const Tensor& storage = a[0]->storage;
    const auto& sizes_v = a[2]->value->items;
    const auto& strides_v = a[3]->value->items;
    const int64_t offset = a[1]->value->integer;
    if (sizes_v.size() != strides_v.size() ||
        sizes_v.size() > static_cast<size_t>(pt_format::kMaxTensorDims)) {
      fail("a tensor has " + std::to_string(sizes_v.size()) + " sizes and " +
           std::to_string(strides_v.size()) + " strides (at most " +
           std::to_string(pt_format::kMaxTensorDims) + " dims)");
    }
    std::vector<int64_t> sizes, strides;
    // The last element's index must lie in the storage (no overflow on the way).
    int64_t last = offset;
    bool empty = false, bad = offset < 0;
    for (size_t i = 0; i < sizes_v.size(); ++i) {
      const int64_t n = sizes_v[i]->integer, s = strides_v[i]->integer;
      if (n < 0 || s < 0) bad = true;
      if (n == 0) empty = true;
      int64_t span = 0;
      if (n > 0 &&
          (__builtin_mul_overflow(n - 1, s, &span) || __builtin_add_overflow(last, span, &last))) {
        bad = true;
      }
      sizes.push_back(n);
      strides.push_back(s);
    }
    int64_t numel = 1;
    for (int64_t n : sizes) {
      if (__builtin_mul_overflow(numel, n, &numel)) bad = true;
    }
    const int64_t available = storage.numel();
    if (bad || (empty ? offset > available : last >= available)) {
      std::string shape;
      for (size_t i = 0; i < sizes.size(); ++i) {
        shape += (i ? ", " : "") + std::to_string(sizes[i]) + ":" + std::to_string(strides[i]);
      }
      fail("a tensor of sizes:strides [" + shape + "] at offset " + std::to_string(offset) +
           " does not fit in its storage of " + std::to_string(available) + " elements");
    }
    PtValue t;
    t.kind = Kind::Tensor;
    t.tensor = make_view(storage, sizes, strides, offset);
    t.location = a[0]->location;
    t.requires_grad = a[4]->value->boolean;
    if (t.requires_grad && is_floating_point(t.tensor.scalar_type())) {
      t.tensor.set_requires_grad(true);
    }
    return pickle::make_value(std::move(t));
  }

  StorageSource source_;
  size_t pid_items_;
  std::string file_;
  std::unordered_map<std::string, NodePtr> storages_;
};

// PyTorch's legacy format (torch.save before 1.6, or _use_new_zipfile_serialization=False):
// five pickles in a row (a magic number, the format version 1001, a dict of system information,
// the object, the sorted list of storage keys), then for each key in that order its element
// count (int64) and its bytes. Storages are allocated when the object refers to them (at most
// as many bytes as the file has, all together) and filled from the data section.
PtValue load_legacy(uint64_t size, const zip::ReadAt& read, const std::string& name,
                    const PtLoadOptions& options) {
  auto fail = [&](const std::string& what) -> void {
    throw UnpicklingError("PyTorch file " + name + " (legacy format): " + what);
  };
  if (options.device && !options.device->is_cpu()) {
    throw ValueError("PyTorch file " + name +
                     " is in the legacy (pre-1.6) format, whose tensors load to the CPU only; "
                     "move them to " +
                     options.device->str() + " afterwards");
  }
  // The pickles come first; the data section after them is read straight into the storages.
  std::string head(std::min<uint64_t>(size, pt_format::kMaxPickleBytes), '\0');
  if (!head.empty()) read(0, head.data(), head.size());
  // pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2)
  static const std::string kMagic("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.", 15);
  if (head.compare(0, kMagic.size(), kMagic) != 0) {
    fail(
        "it does not start with the magic number of torch.save's legacy format in pickle "
        "protocol 2 (the only protocol Ember reads in this format)");
  }
  size_t pos = kMagic.size();
  const std::string where = "PyTorch file " + name + " (legacy format)";
  PyTorchHooks plain(
      [&](const std::string& key, ScalarType, int64_t) -> Tensor {
        throw UnpicklingError(where + ": storage '" + key + "' outside the object");
      },
      6, name);
  NodePtr version = pickle::unpickle_at(head, pos, plain, where);
  if (version->value->kind != Kind::Int || version->value->integer != 1001) {
    fail("its format version is not 1001");
  }
  NodePtr info = pickle::unpickle_at(head, pos, plain, where);
  bool big_endian = false;
  if (info->value->kind == Kind::Dict) {
    const PtValuePtr little = info->value->get("little_endian");
    big_endian = little && little->kind == Kind::Bool && !little->boolean;
  }
  std::unordered_map<std::string, Tensor> pending;
  uint64_t claimed = 0;
  auto allocate = [&](const std::string& key, ScalarType dtype, int64_t numel) {
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(numel), element_size(dtype), &bytes) ||
        __builtin_add_overflow(claimed, bytes, &claimed) || claimed > size) {
      fail("its storages claim more bytes than the file's " + std::to_string(size));
    }
    Tensor s = make_empty({numel}, dtype, Device(kCPU));
    pending.emplace(key, s);
    return s;
  };
  PyTorchHooks hooks(allocate, 6, name);
  NodePtr result = pickle::unpickle_at(head, pos, hooks, where);
  NodePtr keys = pickle::unpickle_at(head, pos, plain, where);
  if (keys->value->kind != Kind::List) fail("the list of storage keys is missing");
  uint64_t offset = pos;
  for (const PtValuePtr& k : keys->value->items) {
    if (k->kind != Kind::String) fail("a storage key is not a string");
    auto it = pending.find(k->string);
    if (it == pending.end()) fail("storage '" + k->string + "' is not used by the object");
    Tensor& s = it->second;
    unsigned char count[8];
    if (size - offset < 8) fail("the data of storage '" + k->string + "' is past the file's end");
    read(offset, count, 8);
    uint64_t numel = 0;
    for (int i = 7; i >= 0; --i) numel = (numel << 8) | count[i];
    if (big_endian) {
      uint64_t swapped = 0;
      for (int i = 0; i < 8; ++i) swapped = (swapped << 8) | count[i];
      numel = swapped;
    }
    if (numel != static_cast<uint64_t>(s.numel())) {
      fail("storage '" + k->string + "' has " + std::to_string(numel) +
           " elements in the data section but " + std::to_string(s.numel()) + " in the object");
    }
    offset += 8;
    if (size - offset < s.nbytes()) {
      fail("the data of storage '" + k->string + "' runs past the file's end (truncated file?)");
    }
    if (s.nbytes() > 0) read(offset, s.data_ptr(), s.nbytes());
    if (big_endian) swap_bytes(s.data_ptr(), s.nbytes(), s.element_size());
    normalise_bools(s);
    offset += s.nbytes();
    pending.erase(it);
  }
  if (!pending.empty()) fail("storage '" + pending.begin()->first + "' has no data");
  return *result->value;
}

[[noreturn]] void not_a_checkpoint(const std::string& name) {
  throw ValueError(name +
                   " is not a PyTorch checkpoint (torch.save's zip format starts with "
                   "\"PK\\x03\\x04\", its legacy format with a pickle); for a "
                   "safetensors file use ember::load");
}

PtValue load_archive(uint64_t size, const zip::ReadAt& read, const std::string& name,
                     const PtLoadOptions& options) {
  unsigned char head[4] = {};
  if (size >= 4) read(0, head, 4);
  if (size < 4 || std::memcmp(head, "PK\x03\x04", 4) != 0) {
    const bool legacy = size >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5;
    if (legacy) return load_legacy(size, read, name, options);
    not_a_checkpoint(name);
  }
  const zip::Reader zip(size, read, name);
  if (zip.entries().empty()) throw ValueError("PyTorch file " + name + ": the archive is empty");
  // Every record sits under one folder, the archive's name ("archive" or the file's stem).
  const std::string& first = zip.entries().front().name;
  const std::string prefix = first.substr(0, first.find('/'));
  const zip::Entry* pkl = zip.find(prefix + "/data.pkl");
  if (pkl == nullptr) {
    throw ValueError("PyTorch file " + name + ": the archive has no " + prefix +
                     "/data.pkl (a TorchScript archive from torch.jit.save, or not a torch.save "
                     "file)");
  }
  bool big_endian = false;
  if (const zip::Entry* order = zip.find(prefix + "/byteorder")) {
    const std::string o = zip.read_string(*order, 16);
    if (o != "little" && o != "big") {
      throw ValueError("PyTorch file " + name + ": byteorder is \"" + o +
                       "\", not \"little\" or \"big\"");
    }
    big_endian = o == "big";
  }
  const std::string bytes = zip.read_string(*pkl, pt_format::kMaxPickleBytes);
  auto refuse = [&](const std::string& what) {
    throw UnpicklingError("PyTorch file " + name + ": " + what);
  };
  auto from_zip = [&](const std::string& key, ScalarType dtype, int64_t numel) {
    const std::string record = prefix + "/data/" + key;
    const zip::Entry* entry = zip.find(record);
    if (entry == nullptr) refuse("storage '" + key + "' has no record " + record);
    const uint64_t element = element_size(dtype);
    if (entry->size % element != 0 || entry->size / element != static_cast<uint64_t>(numel)) {
      refuse("storage '" + key + "' of " + std::to_string(numel) + " " +
             pt_format::dtype_name(dtype) + " elements has a record of " +
             std::to_string(entry->size) + " bytes");
    }
    // Read straight into the tensor's memory: no second copy of the data.
    Tensor s = make_empty({numel}, dtype, Device(kCPU));
    zip.read(*entry, s.data_ptr());
    if (big_endian) swap_bytes(s.data_ptr(), entry->size, element);
    normalise_bools(s);
    if (options.device && !options.device->is_cpu()) s = s.to(*options.device);
    return s;
  };
  PyTorchHooks hooks(from_zip, 5, name);
  NodePtr result = pickle::unpickle(bytes, hooks, "PyTorch file " + name + " (" + pkl->name + ")");
  return *result->value;
}

}  // namespace

PtValue load_pt_object(const std::string& path, const PtLoadOptions& options) {
  const serialize_detail::InputFile file(path, "PyTorch file");
  auto read = [&](uint64_t offset, void* dst, size_t n) { file.read(offset, dst, n); };
  return load_archive(file.size(), read, path, options);
}

PtValue load_pt_object_bytes(const std::string& bytes, const std::string& name,
                             const PtLoadOptions& options) {
  auto read = [&](uint64_t offset, void* dst, size_t n) {
    if (n) std::memcpy(dst, bytes.data() + offset, n);
  };
  return load_archive(bytes.size(), read, name, options);
}

NamedTensors pt_as_state_dict(const PtValue& obj, const std::string& what) {
  if (obj.kind != Kind::Dict) {
    throw ValueError(what + " holds a " + obj.type_name() +
                     ", not a state dict (a dict of name -> tensor)");
  }
  NamedTensors out;
  std::unordered_map<std::string, size_t> index;
  for (const auto& [k, v] : obj.entries) {
    if (k->kind != Kind::String || v->kind != Kind::Tensor) {
      std::string keys;
      for (const auto& [k2, v2] : obj.entries) {
        if (keys.size() > 200) {
          keys += ", ...";
          break;
        }
        keys += (keys.empty() ? "'" : ", '") +
                (k2->kind == Kind::String ? k2->string : std::string("<") + k2->type_name() + ">") +
                "' (" + v2->type_name() + ")";
      }
      throw ValueError(what + " holds a " + obj.type_name() +
                       " that is not a state dict of name -> tensor: " + keys +
                       ". For a training checkpoint, take its state dict: "
                       "ember::pt_as_state_dict(*ember::load_pt_object(path).get(\"<key>\"))");
    }
    // A key given twice keeps its first place and its last value, as a Python dict does.
    auto [it, inserted] = index.emplace(k->string, out.size());
    if (inserted) {
      out.emplace_back(k->string, v->tensor);
    } else {
      out[it->second].second = v->tensor;
    }
  }
  return out;
}

NamedTensors load_pt(const std::string& path, const PtLoadOptions& options) {
  return pt_as_state_dict(load_pt_object(path, options),
                          "ember::load_pt('" + path + "'): the file");
}

}  // namespace ember
