#pragma once
// What every input to the safetensors load path must satisfy, shared by the libFuzzer target
// (tests/fuzz/fuzz_safetensors.cpp) and the tests that replay the corpus and mutated files
// (tests/serialize/test_serialize_fuzz_corpus.cpp, tests/serialize/test_serialize_mutations.cpp):
//
//  - every public load function either loads or throws ember::Error, nothing else;
//  - loading from memory (safetensors::load) and from a file (ember::load, load_metadata,
//    load(Tensor&), load(std::vector<Tensor>&)) agree on accepting the input, and on the error
//    message;
//  - what loads is consistent: CPU, contiguous tensors whose byte counts add up to the data
//    section, the same tensors and bytes from memory and from the file, the single tensor or the
//    list that the file's "ember.content" tag and names allow, and the same tensors again after
//    saving them and loading the result;
//  - the header parser agrees with the writer: an accepted header written back by make_header
//    parses to the same entries.
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "ember/serialize.h"
#include "fuzz/mem_file.h"
#include "serialize/safetensors_format.h"

namespace ember::fuzz {

namespace detail {

// The result of one load call: a value, or the message of the ember::Error it threw. Any other
// exception is a property violation, reported in `foreign`.
template <typename T>
struct Attempt {
  bool ok = false;
  T value{};
  std::string error;
  std::string foreign;
};

template <typename T, typename F>
Attempt<T> attempt(F&& f) {
  Attempt<T> a;
  try {
    a.value = f();
    a.ok = true;
  } catch (const ember::Error& e) {
    a.error = e.what();
  } catch (const std::exception& e) {
    a.foreign = std::string("a non-ember exception: ") + e.what();
  } catch (...) {
    a.foreign = "a non-std exception";
  }
  return a;
}

inline bool same_tensor(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.sizes() == b.sizes() && a.nbytes() == b.nbytes() &&
         (a.nbytes() == 0 || std::memcmp(a.data_ptr(), b.data_ptr(), a.nbytes()) == 0);
}

inline bool same_tensors(const std::map<std::string, Tensor>& a,
                         const std::map<std::string, Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (ia->first != ib->first || !same_tensor(ia->second, ib->second)) return false;
  }
  return true;
}

inline bool same_header(const safetensors_format::Header& a, const safetensors_format::Header& b) {
  if (a.metadata != b.metadata || a.entries.size() != b.entries.size()) return false;
  for (size_t i = 0; i < a.entries.size(); ++i) {
    const auto &x = a.entries[i], &y = b.entries[i];
    if (x.name != y.name || x.dtype != y.dtype || x.shape != y.shape || x.begin != y.begin ||
        x.end != y.end) {
      return false;
    }
  }
  return true;
}

// "0", "1", ... "n-1" and nothing else: what load(std::vector<Tensor>&) accepts.
inline bool list_names(const std::map<std::string, Tensor>& tensors) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors.find(std::to_string(i)) == tensors.end()) return false;
  }
  return true;
}

}  // namespace detail

// Runs `bytes` through every load function. Returns "" when the properties above hold, else
// what broke them.
inline std::string check_load_path(const std::string& bytes) {
  namespace fmt = safetensors_format;
  using detail::attempt;
  using Tensors = std::map<std::string, Tensor>;
  // The bytes as a file too; its name also names the memory input, so that both refuse a bad
  // input with the same message.
  MemFile file(bytes);
  if (!file.ok()) return "";  // no memfd (not a property of the loader)
  const std::string& path = file.path();

  // The header alone, as the loaders parse it; an accepted one must survive the writer.
  auto header = attempt<fmt::Header>([&] {
    unsigned char prefix[8] = {};
    if (bytes.size() >= 8) std::memcpy(prefix, bytes.data(), 8);
    const uint64_t n = fmt::header_length(prefix, bytes.size(), path);
    return fmt::parse_header(bytes.data() + 8, n, bytes.size(), path);
  });
  if (!header.foreign.empty()) return "parse_header threw " + header.foreign;
  if (header.ok) {
    const fmt::Header& h = header.value;
    std::string again = fmt::make_header(h.entries, h.metadata);
    const size_t again_start = again.size();
    again.append(bytes, h.data_start, std::string::npos);
    unsigned char prefix[8];
    std::memcpy(prefix, again.data(), 8);
    auto h2 = attempt<fmt::Header>([&] {
      return fmt::parse_header(again.data() + 8,
                               fmt::header_length(prefix, again.size(), "round trip"), again.size(),
                               "round trip");
    });
    if (!h2.ok) return "the header written back by make_header does not parse: " + h2.error;
    if (!detail::same_header(h, h2.value) || h2.value.data_start != again_start) {
      return "the header written back by make_header parses to other entries";
    }
  }

  // From memory.
  auto memory = attempt<Tensors>([&] { return ember::safetensors::load(bytes, path); });
  if (!memory.foreign.empty()) return "safetensors::load threw " + memory.foreign;
  if (memory.ok != header.ok) {
    return "safetensors::load " + std::string(memory.ok ? "accepted" : "refused") +
           " what the header parser " + (header.ok ? "accepted" : "refused") + ": " + memory.error +
           header.error;
  }

  // From the file.
  auto loaded = attempt<Tensors>([&] { return ember::load(path); });
  if (!loaded.foreign.empty()) return "ember::load threw " + loaded.foreign;
  auto metadata = attempt<TensorMetadata>([&] { return ember::load_metadata(path); });
  if (!metadata.foreign.empty()) return "load_metadata threw " + metadata.foreign;
  if (loaded.ok != memory.ok || metadata.ok != memory.ok) {
    return "memory and file loads disagree: safetensors::load " +
           std::string(memory.ok ? "accepted" : "refused") + ", ember::load " +
           (loaded.ok ? "accepted" : "refused") + ", load_metadata " +
           (metadata.ok ? "accepted" : "refused") + " (" + memory.error + loaded.error +
           metadata.error + ")";
  }
  if (!memory.ok) {
    if (memory.error != loaded.error || loaded.error != metadata.error) {
      return "memory and file loads refuse with different messages: '" + memory.error + "' vs '" +
             loaded.error + "' vs '" + metadata.error + "'";
    }
    // The typed loads read the metadata first: they must refuse too.
    Tensor t;
    std::vector<Tensor> v;
    auto one = attempt<bool>([&] {
      ember::load(t, path);
      return true;
    });
    auto list = attempt<bool>([&] {
      ember::load(v, path);
      return true;
    });
    if (one.ok || list.ok) return "load(Tensor&) or load(std::vector<Tensor>&) accepted a bad file";
    if (!one.foreign.empty() || !list.foreign.empty()) {
      return "a typed load threw " + one.foreign + list.foreign;
    }
    return "";
  }

  // What loaded is consistent.
  const Tensors& tensors = memory.value;
  if (!detail::same_tensors(tensors, loaded.value)) {
    return "memory and file loads give different tensors";
  }
  if (metadata.value != header.value.metadata) return "load_metadata differs from the header";
  uint64_t total = 0;
  for (const auto& [name, t] : tensors) {
    if (!t.is_cpu() || !t.is_contiguous()) return "tensor \"" + name + "\" is not CPU contiguous";
    if (t.nbytes() != static_cast<size_t>(t.numel()) * t.element_size()) {
      return "tensor \"" + name + "\" has nbytes != numel * element_size";
    }
    if (t.dtype() == kBool) {
      const auto* b = static_cast<const unsigned char*>(t.data_ptr());
      for (size_t i = 0; i < t.nbytes(); ++i) {
        if (b[i] > 1) return "bool tensor \"" + name + "\" holds a byte other than 0 and 1";
      }
    }
    total += t.nbytes();
  }
  if (total != bytes.size() - header.value.data_start) {
    return "the tensors' bytes do not add up to the data section";
  }

  // Saved and loaded again: the same tensors. (A tensor named "" loads, as in Python, but
  // ember::save refuses to write one.)
  NamedTensors named(tensors.begin(), tensors.end());
  auto resaved = attempt<Tensors>(
      [&] { return ember::safetensors::load(ember::safetensors::save(named, metadata.value)); });
  if (!resaved.foreign.empty()) return "a save/load round trip threw " + resaved.foreign;
  if (tensors.count("") == 0) {
    if (!resaved.ok) return "saving what loaded and loading it again failed: " + resaved.error;
    if (!detail::same_tensors(tensors, resaved.value)) return "a save/load round trip differs";
  }

  // The typed loads: exactly what the tag and the names allow.
  const auto tag = metadata.value.find("ember.content");
  const bool untagged = tag == metadata.value.end();
  Tensor t;
  auto one = attempt<bool>([&] {
    ember::load(t, path);
    return true;
  });
  if (!one.foreign.empty()) return "load(Tensor&) threw " + one.foreign;
  const bool one_allowed = tensors.size() == 1 && (untagged || tag->second == "tensor");
  if (one.ok != one_allowed) {
    return "load(Tensor&) " + std::string(one.ok ? "accepted" : "refused") +
           " a file it should have " + (one_allowed ? "accepted" : "refused") + ": " + one.error;
  }
  if (one.ok && !detail::same_tensor(t, tensors.begin()->second)) {
    return "load(Tensor&) gives another tensor";
  }
  std::vector<Tensor> v;
  auto list = attempt<bool>([&] {
    ember::load(v, path);
    return true;
  });
  if (!list.foreign.empty()) return "load(std::vector<Tensor>&) threw " + list.foreign;
  const bool list_allowed =
      detail::list_names(tensors) && (untagged || tag->second == "tensor_list");
  if (list.ok != list_allowed) {
    return "load(std::vector<Tensor>&) " + std::string(list.ok ? "accepted" : "refused") +
           " a file it should have " + (list_allowed ? "accepted" : "refused") + ": " + list.error;
  }
  if (list.ok) {
    if (v.size() != tensors.size()) return "load(std::vector<Tensor>&) gives another length";
    for (size_t i = 0; i < v.size(); ++i) {
      if (!detail::same_tensor(v[i], tensors.at(std::to_string(i)))) {
        return "load(std::vector<Tensor>&) gives another tensor " + std::to_string(i);
      }
    }
  }
  return "";
}

}  // namespace ember::fuzz
