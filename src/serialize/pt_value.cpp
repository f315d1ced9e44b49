// PtValue's helpers and the builders of checkpoints to save (serialize_pt.h).
#include "ember/serialize_pt.h"

namespace ember {

PtValuePtr PtValue::get(const std::string& key) const {
  if (kind != Kind::Dict) return nullptr;
  PtValuePtr found;
  for (const auto& [k, v] : entries) {  // the last of equal keys wins, as in a Python dict
    if (k->kind == Kind::String && k->string == key) found = v;
  }
  return found;
}

const char* PtValue::type_name() const {
  switch (kind) {
    case Kind::None:
      return "None";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Float:
      return "float";
    case Kind::String:
      return "str";
    case Kind::List:
      return "list";
    case Kind::Tuple:
      return "tuple";
    case Kind::Dict:
      return ordered ? "OrderedDict" : "dict";
    case Kind::Tensor:
      return is_parameter ? "Parameter" : "Tensor";
    case Kind::Device:
      return "device";
    case Kind::Dtype:
      return "dtype";
  }
  return "?";
}

namespace {
PtValuePtr make(PtValue v) {
  return std::make_shared<const PtValue>(std::move(v));
}
}  // namespace

PtValuePtr pt_tensor(const Tensor& t) {
  EMBER_CHECK(t.defined(), ValueError, "pt_tensor: the tensor is undefined");
  PtValue v;
  v.kind = PtValue::Kind::Tensor;
  v.tensor = t;
  v.location = t.device().str();
  v.requires_grad = t.requires_grad();
  return make(std::move(v));
}

PtValuePtr pt_int(int64_t x) {
  PtValue v;
  v.kind = PtValue::Kind::Int;
  v.integer = x;
  return make(std::move(v));
}

PtValuePtr pt_float(double x) {
  PtValue v;
  v.kind = PtValue::Kind::Float;
  v.floating = x;
  return make(std::move(v));
}

PtValuePtr pt_string(std::string s) {
  PtValue v;
  v.kind = PtValue::Kind::String;
  v.string = std::move(s);
  return make(std::move(v));
}

PtValuePtr pt_bool(bool b) {
  PtValue v;
  v.kind = PtValue::Kind::Bool;
  v.boolean = b;
  return make(std::move(v));
}

PtValuePtr pt_none() {
  return make(PtValue{});
}

PtValuePtr pt_list(std::vector<PtValuePtr> items) {
  PtValue v;
  v.kind = PtValue::Kind::List;
  v.items = std::move(items);
  return make(std::move(v));
}

PtValuePtr pt_tuple(std::vector<PtValuePtr> items) {
  PtValue v;
  v.kind = PtValue::Kind::Tuple;
  v.items = std::move(items);
  return make(std::move(v));
}

PtValuePtr pt_dict(std::vector<std::pair<std::string, PtValuePtr>> entries, bool ordered) {
  PtValue v;
  v.kind = PtValue::Kind::Dict;
  v.ordered = ordered;
  for (auto& [k, x] : entries) v.entries.emplace_back(pt_string(k), std::move(x));
  return make(std::move(v));
}

PtValuePtr pt_state_dict(const NamedTensors& tensors) {
  std::vector<std::pair<std::string, PtValuePtr>> entries;
  entries.reserve(tensors.size());
  for (const auto& [name, t] : tensors) entries.emplace_back(name, pt_tensor(t));
  return pt_dict(std::move(entries), true);
}

}  // namespace ember
