// PyTorch's optimizer state dict (a nested PtValue) to Ember's flat one (optim/optimizer.h).
#include <set>

#include "ember/ops.h"
#include "ember/serialize_pt_optimizer.h"
#include "ember/tensor_data.h"

namespace ember {
namespace {

using Kind = PtValue::Kind;

[[noreturn]] void fail(const std::string& what) {
  throw ValueError("PyTorch optimizer state: " + what);
}

std::string key_text(const PtValue& k) {
  if (k.kind == Kind::String) return k.string;
  if (k.kind == Kind::Int) return std::to_string(k.integer);
  fail(std::string("a key is a ") + k.type_name());
}

bool is_number(const PtValue& v) {
  return v.kind == Kind::Int || v.kind == Kind::Float || v.kind == Kind::Bool;
}

double number(const PtValue& v) {
  if (v.kind == Kind::Int) return static_cast<double>(v.integer);
  if (v.kind == Kind::Bool) return v.boolean ? 1.0 : 0.0;
  return v.floating;
}

}  // namespace

optim::OptimizerStateDict pt_optimizer_state_dict(const PtValue& state_dict,
                                                  const optim::Optimizer& optimizer) {
  const PtValuePtr state = state_dict.get("state");
  const PtValuePtr groups = state_dict.get("param_groups");
  if (!state || state->kind != Kind::Dict || !groups || groups->kind != Kind::List) {
    fail(std::string("expected a dict with 'state' (a dict) and 'param_groups' (a list), got a ") +
         state_dict.type_name());
  }
  std::set<std::string> known;
  for (const auto& [name, value] : optimizer.defaults().values()) known.insert(name);
  optim::OptimizerStateDict out;
  for (size_t g = 0; g < groups->items.size(); ++g) {
    const PtValue& group = *groups->items[g];
    if (group.kind != Kind::Dict) fail("param_groups[" + std::to_string(g) + "] is not a dict");
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    for (const auto& [k, v] : group.entries) {
      const std::string name = key_text(*k);
      if (name == "params") {
        std::vector<int64_t> indices;
        for (const PtValuePtr& i : v->items) {
          if (i->kind != Kind::Int) fail(prefix + "params holds a " + i->type_name());
          indices.push_back(i->integer);
        }
        out[prefix + "params"] = tensor(indices, kLong);
        continue;
      }
      // A tuple option ("betas") is spelled one value per name ("beta1", "beta2").
      if (v->kind == Kind::Tuple && !name.empty() && name.back() == 's') {
        for (size_t i = 0; i < v->items.size(); ++i) {
          const std::string part = name.substr(0, name.size() - 1) + std::to_string(i + 1);
          if (known.count(part) && is_number(*v->items[i])) {
            out[prefix + part] = scalar_tensor(number(*v->items[i]), kDouble);
          }
        }
        continue;
      }
      if (known.count(name)) {
        if (!is_number(*v)) fail(prefix + name + " is a " + v->type_name() + ", not a number");
        out[prefix + name] = scalar_tensor(number(*v), kDouble);
      } else if (!(v->kind == Kind::None || (v->kind == Kind::Bool && !v->boolean))) {
        fail(prefix + name + " is on, and Ember's " + optimizer.defaults().type_name() +
             " has no such option");
      }
    }
  }
  for (const auto& [k, v] : state->entries) {
    const std::string prefix = "state." + key_text(*k) + ".";
    if (v->kind != Kind::Dict) fail(prefix + " is not a dict");
    for (const auto& [name, x] : v->entries) {
      if (x->kind == Kind::Tensor) {
        out[prefix + key_text(*name)] = x->tensor;
      } else if (is_number(*x)) {
        out[prefix + key_text(*name)] = scalar_tensor(number(*x), kDouble);  // a float step
      } else {
        fail(prefix + key_text(*name) + " is a " + x->type_name());
      }
    }
  }
  return out;
}

void load_pt_optimizer_state(optim::Optimizer& optimizer, const PtValue& state_dict) {
  optimizer.load_state_dict(pt_optimizer_state_dict(state_dict, optimizer));
}

}  // namespace ember
