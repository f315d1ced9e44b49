#pragma once
// What every input to the PyTorch-format load path must satisfy, shared by the libFuzzer target
// (tests/fuzz/fuzz_pt.cpp) and the corpus replay (tests/serialize/test_serialize_pt_fuzz_corpus):
//
//  - load_pt_object (from a file) and load_pt_object_bytes either load or throw ember::Error,
//    nothing else, and agree: both load the same object, or both give the same message;
//  - load_pt on the same file loads exactly when the object is a dict of str -> tensor;
//  - what loads saves again with save_pt_bytes and loads back as the same object (kinds, keys,
//    numbers, strings, tensors' dtypes, shapes and bytes; the location becomes the CPU, where the
//    tensors now are).
// Returns "" when they hold, else what failed.
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <utility>

#include "ember/serialize_pt.h"
#include "fuzz/mem_file.h"

namespace ember::fuzz {

namespace pt_detail {

inline std::string tensor_bytes(const Tensor& t) {
  const Tensor c = t.detach().contiguous();
  return std::string(static_cast<const char*>(c.data_ptr()), c.nbytes());
}

// Empty when a and b are the same object, else where they differ. A pair of nodes is compared
// once: a pickle can share a container many times over (t1 = (t0, t0), t2 = (t1, t1), ...), and
// walking that as a tree would take exponential time.
using Seen = std::set<std::pair<const PtValue*, const PtValue*>>;
// `locations`: compare where each tensor was saved from too (not after saving again: save_pt
// writes where the tensor is now, the CPU here, as torch.save does).
inline std::string compare(const PtValue& a, const PtValue& b, const std::string& at, Seen& seen,
                           bool locations) {
  using Kind = PtValue::Kind;
  if (!seen.emplace(&a, &b).second) return "";
  if (a.kind != b.kind) return at + ": " + a.type_name() + " vs " + b.type_name();
  switch (a.kind) {
    case Kind::None:
      return "";
    case Kind::Bool:
      return a.boolean == b.boolean ? "" : at + ": bool";
    case Kind::Int:
      return a.integer == b.integer ? "" : at + ": int";
    case Kind::Float:
      return (a.floating == b.floating || (std::isnan(a.floating) && std::isnan(b.floating)))
                 ? ""
                 : at + ": float";
    case Kind::String:
    case Kind::Device:
      return a.string == b.string ? "" : at + ": string";
    case Kind::Dtype:
      return a.dtype == b.dtype ? "" : at + ": dtype";
    case Kind::Tensor:
      if (a.tensor.scalar_type() != b.tensor.scalar_type() ||
          a.tensor.sizes() != b.tensor.sizes() ||
          tensor_bytes(a.tensor) != tensor_bytes(b.tensor) ||
          (locations && a.location != b.location) || a.is_parameter != b.is_parameter) {
        return at + ": tensor";
      }
      return "";
    case Kind::List:
    case Kind::Tuple:
      if (a.items.size() != b.items.size()) return at + ": length";
      for (size_t i = 0; i < a.items.size(); ++i) {
        std::string d =
            compare(*a.items[i], *b.items[i], at + "[" + std::to_string(i) + "]", seen, locations);
        if (!d.empty()) return d;
      }
      return "";
    case Kind::Dict:
      if (a.entries.size() != b.entries.size() || a.ordered != b.ordered) return at + ": dict";
      for (size_t i = 0; i < a.entries.size(); ++i) {
        std::string d =
            compare(*a.entries[i].first, *b.entries[i].first, at + "<key>", seen, locations);
        if (d.empty())
          d = compare(*a.entries[i].second, *b.entries[i].second, at + "{}", seen, locations);
        if (!d.empty()) return d;
      }
      return "";
  }
  return at + ": unknown kind";
}

template <typename F>
std::string attempt(F&& f, PtValue* out) {
  try {
    *out = f();
    return "";
  } catch (const ember::Error& e) {
    return std::string("E:") + e.what();
  } catch (const std::exception& e) {
    return std::string("F:a non-ember exception: ") + e.what();
  } catch (...) {
    return "F:a non-std exception";
  }
}

inline bool is_state_dict(const PtValue& v) {
  if (v.kind != PtValue::Kind::Dict) return false;
  for (const auto& [k, x] : v.entries) {
    if (k->kind != PtValue::Kind::String || x->kind != PtValue::Kind::Tensor) return false;
  }
  return true;
}

}  // namespace pt_detail

inline std::string check_pt_load_path(const std::string& bytes) {
  using namespace pt_detail;
  MemFile file(bytes);
  if (!file.ok()) return "";  // no memfd (not a property of the loader)
  PtValue from_file, from_bytes;
  const std::string e1 = attempt([&] { return load_pt_object(file.path()); }, &from_file);
  const std::string e2 =
      attempt([&] { return load_pt_object_bytes(bytes, file.path()); }, &from_bytes);
  for (const std::string* e : {&e1, &e2}) {
    if (e->rfind("F:", 0) == 0) return e->substr(2);
  }
  if (e1 != e2) return "file and memory loads disagree: '" + e1 + "' vs '" + e2 + "'";
  if (!e1.empty()) return "";
  Seen seen_loads, seen_resave;
  if (std::string d = compare(from_file, from_bytes, "obj", seen_loads, true); !d.empty()) {
    return "file and memory loads differ at " + d;
  }
  bool state_dict_ok = true;
  try {
    load_pt(file.path());
  } catch (const ember::Error&) {
    state_dict_ok = false;
  } catch (...) {
    return "load_pt threw a non-ember exception";
  }
  if (state_dict_ok != is_state_dict(from_file)) return "load_pt disagrees with the object's kind";
  PtValue again;
  const std::string e3 =
      attempt([&] { return load_pt_object_bytes(save_pt_bytes(from_file), "resaved"); }, &again);
  if (!e3.empty()) return "what loaded does not save and load again: " + e3.substr(2);
  if (std::string d = compare(from_file, again, "obj", seen_resave, false); !d.empty()) {
    return "saving and loading again changes " + d;
  }
  return "";
}

}  // namespace ember::fuzz
