// ember::save / ember::load of safetensors files. Saving is atomic (temporary file, fsync,
// rename, fsync of the directory); loading validates the whole header before reading any data.
#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <set>

#include "core/tensor_factory.h"
#include "ember/serialize.h"
#include "serialize/atomic_file.h"
#include "serialize/posix_file.h"
#include "serialize/safetensors_format.h"

namespace ember {
namespace {

namespace fmt = safetensors_format;
static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; a big-endian host would need byte swapping");

struct Prepared {
  std::vector<fmt::Entry> entries;
  std::vector<Tensor> tensors;  // CPU, contiguous, in `entries` order
};

Prepared prepare(const NamedTensors& tensors) {
  Prepared p;
  std::set<std::string> seen;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    EMBER_CHECK(!name.empty(), ValueError, "ember::save: tensor names must not be empty");
    EMBER_CHECK(name != "__metadata__", ValueError,
                "ember::save: \"__metadata__\" is reserved by the safetensors format and cannot "
                "name a tensor");
    EMBER_CHECK(seen.insert(name).second, ValueError, "ember::save: the tensor name \"", name,
                "\" appears twice");
    EMBER_CHECK(t.defined(), ValueError, "ember::save: tensor \"", name, "\" is undefined");
    Tensor c = t.detach();
    if (!c.is_cpu()) c = c.cpu();
    c = c.contiguous();
    fmt::Entry e;
    e.name = name;
    e.dtype = c.dtype();
    e.shape.assign(c.sizes().begin(), c.sizes().end());
    e.begin = offset;
    e.end = offset + c.nbytes();
    offset = e.end;
    p.entries.push_back(std::move(e));
    p.tensors.push_back(std::move(c));
  }
  return p;
}

// The map overload orders tensors as Python's safetensors does (larger elements first, then by
// name), so every tensor's data starts aligned to its element size.
NamedTensors aligned_order(const std::map<std::string, Tensor>& tensors) {
  NamedTensors v(tensors.begin(), tensors.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    size_t ea = a.second.defined() ? a.second.element_size() : 0;
    size_t eb = b.second.defined() ? b.second.element_size() : 0;
    return ea > eb;
  });
  return v;
}

void save_prepared(const Prepared& p, const TensorMetadata& metadata, const std::string& path) {
  const std::string header = fmt::make_header(p.entries, metadata);
  serialize_detail::write_file_atomically(path, [&](const serialize_detail::WriteBytes& write) {
    write(header.data(), header.size());
    for (const Tensor& t : p.tensors) write(t.data_ptr(), t.nbytes());
  });
}

using ReadFn = std::function<void(uint64_t offset, void* dst, size_t n)>;

struct Loaded {
  std::map<std::string, Tensor> tensors;
  TensorMetadata metadata;
};

Loaded load_impl(uint64_t size, const ReadFn& read, const std::string& name, bool data) {
  unsigned char prefix[8] = {};
  if (size >= 8) read(0, prefix, 8);
  uint64_t n = fmt::header_length(prefix, size, name);
  std::string json(n, '\0');
  read(8, json.data(), n);
  fmt::Header h = fmt::parse_header(json.data(), n, size, name);
  Loaded out;
  out.metadata = std::move(h.metadata);
  if (!data) return out;
  for (const fmt::Entry& e : h.entries) {
    Tensor t = make_empty(e.shape, e.dtype, Device(kCPU));
    read(h.data_start + e.begin, t.data_ptr(), e.end - e.begin);
    if (e.dtype == kBool) {
      // Any byte other than 0 or 1 would be an invalid C++ bool: read it as true, like numpy.
      auto* b = static_cast<unsigned char*>(t.data_ptr());
      for (uint64_t i = 0; i < e.end - e.begin; ++i) b[i] = b[i] != 0;
    }
    out.tensors.emplace(e.name, std::move(t));
  }
  return out;
}

Loaded load_file(const std::string& path, bool data) {
  serialize_detail::remove_stale_temporaries(path);
  const serialize_detail::InputFile file(path, "safetensors file");
  auto read = [&](uint64_t offset, void* dst, size_t n) { file.read(offset, dst, n); };
  return load_impl(file.size(), read, path, data);
}

}  // namespace

void save(const NamedTensors& tensors, const std::string& path, const TensorMetadata& metadata) {
  save_prepared(prepare(tensors), metadata, path);
}

void save(const std::map<std::string, Tensor>& tensors, const std::string& path,
          const TensorMetadata& metadata) {
  save(aligned_order(tensors), path, metadata);
}

std::map<std::string, Tensor> load(const std::string& path) {
  return load_file(path, true).tensors;
}

TensorMetadata load_metadata(const std::string& path) {
  return load_file(path, false).metadata;
}

namespace safetensors {

std::string save(const NamedTensors& tensors, const TensorMetadata& metadata) {
  Prepared p = prepare(tensors);
  std::string out = fmt::make_header(p.entries, metadata);
  for (const Tensor& t : p.tensors) out.append(static_cast<const char*>(t.data_ptr()), t.nbytes());
  return out;
}

std::map<std::string, Tensor> load(const std::string& bytes, const std::string& name) {
  auto read = [&](uint64_t offset, void* dst, size_t n) {
    if (n) std::memcpy(dst, bytes.data() + offset, n);
  };
  return load_impl(bytes.size(), read, name, true).tensors;
}

}  // namespace safetensors
}  // namespace ember
