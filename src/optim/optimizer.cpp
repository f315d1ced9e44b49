// Optimizer base: parameter groups, zero_grad, and state dicts that check before they change.
#include "ember/optim/optimizer.h"

#include <cmath>
#include <set>
#include <unordered_set>

#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::optim {

namespace {

std::string shape_str(IntArrayRef s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

Tensor scalar_f64(double v) {
  return scalar_tensor(v, TensorOptions().dtype(kFloat64));
}

// Splits "a.b.rest" into its first two fields and the rest; false when there are fewer.
bool split_key(const std::string& key, std::string& head, std::string& index, std::string& rest) {
  const size_t a = key.find('.');
  if (a == std::string::npos) return false;
  const size_t b = key.find('.', a + 1);
  if (b == std::string::npos) return false;
  head = key.substr(0, a);
  index = key.substr(a + 1, b - a - 1);
  rest = key.substr(b + 1);
  return !index.empty() && !rest.empty();
}

bool parse_index(const std::string& s, size_t& out) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  out = std::stoull(s);
  return true;
}

}  // namespace

// ---- OptimizerParamGroup ----

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.options_ ? other.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.options_ ? other.options_->clone() : nullptr;
  }
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK(options_, Error, "this parameter group has no options");
  return *options_;
}
const OptimizerOptions& OptimizerParamGroup::options() const {
  EMBER_CHECK(options_, Error, "this parameter group has no options");
  return *options_;
}

// ---- Optimizer ----

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups,
                     std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  defaults_->validate();
  size_t n = 0;
  for (const auto& g : param_groups) n += g.params().size();
  EMBER_CHECK(n > 0, ValueError, "optimizer got an empty parameter list");
  for (const auto& g : param_groups) add_param_group(g);
}

Optimizer::~Optimizer() = default;

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  OptimizerParamGroup group(param_group.params(), param_group.has_options()
                                                      ? param_group.options().clone()
                                                      : defaults_->clone());
  const OptimizerOptions& o = group.options();
  EMBER_CHECK(std::string(o.type_name()) == defaults_->type_name(), TypeError,
              "parameter group options are ", o.type_name(), " but this optimizer takes ",
              defaults_->type_name());
  o.validate();
  std::unordered_set<const void*> seen;
  for (const auto& g : param_groups_) {
    for (const auto& p : g.params()) seen.insert(p.unsafeGetTensorImpl());
  }
  for (size_t i = 0; i < group.params().size(); ++i) {
    const Tensor& p = group.params()[i];
    EMBER_CHECK(p.defined(), ValueError, "parameter ", i,
                " of the new parameter group is an undefined tensor");
    EMBER_CHECK(p.is_leaf(), ValueError, "can't optimize a non-leaf Tensor (parameter ", i,
                " of the new parameter group has a grad_fn)");
    EMBER_CHECK(seen.insert(p.unsafeGetTensorImpl()).second, ValueError,
                "some parameters appear in more than one parameter group (parameter ", i,
                " of the new group, shape ", shape_str(p.sizes()), ")");
  }
  param_groups_.push_back(std::move(group));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (auto& group : param_groups_) {
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor& g = p.mutable_grad();
      if (set_to_none) {
        g.reset();
      } else {
        if (g.grad_fn()) {
          g = g.detach();
        } else {
          g.requires_grad_(false);
        }
        g.zero_();
      }
    }
  }
}

std::vector<Tensor> Optimizer::parameters() const {
  std::vector<Tensor> out;
  out.reserve(size());
  for (const auto& g : param_groups_) out.insert(out.end(), g.params().begin(), g.params().end());
  return out;
}

size_t Optimizer::size() const {
  size_t n = 0;
  for (const auto& g : param_groups_) n += g.params().size();
  return n;
}

OptimizerStateDict Optimizer::state_dict() const {
  OptimizerStateDict out;
  int64_t index = 0;
  for (size_t gi = 0; gi < param_groups_.size(); ++gi) {
    const auto& group = param_groups_[gi];
    const std::string prefix = "param_groups." + std::to_string(gi) + ".";
    const int64_t n = static_cast<int64_t>(group.params().size());
    out[prefix + "params"] = arange(index, index + n, TensorOptions().dtype(kInt64));
    for (const auto& [name, value] : group.options().values()) {
      out[prefix + name] = scalar_f64(value);
    }
    for (const auto& p : group.params()) {
      auto it = state_.find(p.unsafeGetTensorImpl());
      if (it != state_.end()) {
        const std::string sp = "state." + std::to_string(index) + ".";
        for (auto& [name, t] : it->second->tensors()) out[sp + name] = t.detach().clone();
      }
      ++index;
    }
  }
  return out;
}

void Optimizer::load_state_dict(const OptimizerStateDict& state_dict) {
  // Sort the keys into groups and per-parameter state first, rejecting anything unknown.
  std::map<size_t, std::map<std::string, Tensor>> group_entries;
  std::map<size_t, std::map<std::string, Tensor>> state_entries;
  for (const auto& [key, value] : state_dict) {
    std::string head, idx, rest;
    size_t i = 0;
    const bool ok = split_key(key, head, idx, rest) && parse_index(idx, i) &&
                    (head == "param_groups" || head == "state");
    EMBER_CHECK(ok, ValueError, "unexpected key '", key,
                "' in optimizer state dict (keys are param_groups.<g>.<name> and "
                "state.<i>.<name>)");
    EMBER_CHECK(value.defined(), ValueError, "optimizer state dict entry '", key,
                "' is an undefined tensor");
    (head == "param_groups" ? group_entries : state_entries)[i][rest] = value;
  }

  size_t n_groups = 0;
  while (group_entries.count(n_groups)) ++n_groups;
  EMBER_CHECK(group_entries.size() == n_groups, ValueError,
              "optimizer state dict has parameter group ", group_entries.rbegin()->first,
              " but not group ", n_groups);
  EMBER_CHECK(n_groups == param_groups_.size(), ValueError, "loaded state dict has ", n_groups,
              " parameter group(s), but the optimizer has ", param_groups_.size());

  // Options and membership of each group.
  const OptionValues known = defaults_->values();
  std::vector<std::unique_ptr<OptimizerOptions>> new_options;
  std::vector<Tensor> index_to_param;
  for (size_t gi = 0; gi < n_groups; ++gi) {
    const auto& entries = group_entries[gi];
    const std::string prefix = "param_groups." + std::to_string(gi) + ".";
    const auto& group = param_groups_[gi];
    auto pit = entries.find("params");
    EMBER_CHECK(pit != entries.end(), ValueError, "optimizer state dict is missing '", prefix,
                "params'");
    const Tensor& idx = pit->second;
    EMBER_CHECK(idx.dim() == 1 && !is_floating_point(idx.dtype()) && idx.dtype() != kBool,
                ValueError, "'", prefix, "params' must be a 1-D integer tensor, got shape ",
                shape_str(idx.sizes()), " of dtype ", to_string(idx.dtype()));
    EMBER_CHECK(static_cast<size_t>(idx.numel()) == group.params().size(), ValueError,
                "loaded state dict's parameter group ", gi, " has ", idx.numel(),
                " parameter(s), but the optimizer's group has ", group.params().size());
    const std::vector<int64_t> ids = idx.to_vector<int64_t>();
    for (size_t k = 0; k < ids.size(); ++k) {
      const int64_t id = ids[k];
      EMBER_CHECK(id >= 0 && id < 1 << 30, ValueError, "'", prefix, "params' holds index ", id);
      if (index_to_param.size() <= static_cast<size_t>(id)) index_to_param.resize(id + 1);
      EMBER_CHECK(!index_to_param[id].defined(), ValueError, "parameter index ", id,
                  " appears twice in the optimizer state dict");
      index_to_param[id] = group.params()[k];
    }

    std::map<std::string, double> values;
    for (const auto& [name, unused] : known) {
      auto it = entries.find(name);
      // Dicts saved before SGD, Adam, AdamW and RMSprop had maximize lack it: they minimized.
      if (it == entries.end() && name == "maximize") {
        values[name] = 0;
        continue;
      }
      EMBER_CHECK(it != entries.end(), ValueError, "optimizer state dict is missing '", prefix,
                  name, "' (is it from another kind of optimizer than ", defaults_->type_name(),
                  "?)");
      EMBER_CHECK(it->second.numel() == 1, ValueError, "'", prefix, name,
                  "' must hold one value, got shape ", shape_str(it->second.sizes()));
      values[name] = it->second.item<double>();
    }
    for (const auto& [name, unused] : entries) {
      bool ok = name == "params";
      for (const auto& [k, v] : known) ok = ok || k == name;
      EMBER_CHECK(ok, ValueError, "unexpected key '", prefix, name,
                  "' in optimizer state dict for ", defaults_->type_name());
    }
    auto opts = defaults_->clone();
    opts->set_values(values);
    opts->validate();
    new_options.push_back(std::move(opts));
  }

  // Per-parameter state, built aside so that a failure leaves the optimizer untouched.
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>> new_state;
  for (auto& [i, tensors] : state_entries) {
    EMBER_CHECK(i < index_to_param.size() && index_to_param[i].defined(), ValueError,
                "optimizer state dict has state for parameter ", i,
                " which no parameter group lists");
    const Tensor& p = index_to_param[i];
    auto st = make_param_state();
    st->load(tensors, p, "state." + std::to_string(i) + ".");
    new_state[p.unsafeGetTensorImpl()] = std::move(st);
  }

  for (size_t gi = 0; gi < n_groups; ++gi) {
    param_groups_[gi].set_options(std::move(new_options[gi]));
  }
  state_ = std::move(new_state);
}

// ---- helpers for the param states ----

namespace detail {

Tensor state_like_param(const std::map<std::string, Tensor>& tensors, const std::string& name,
                        const Tensor& param, const std::string& prefix, bool required) {
  auto it = tensors.find(name);
  if (it == tensors.end()) {
    EMBER_CHECK(!required, ValueError, "optimizer state dict is missing '", prefix, name, "'");
    return Tensor();
  }
  const Tensor& t = it->second;
  EMBER_CHECK(t.sizes() == param.sizes(), ValueError, "optimizer state '", prefix, name,
              "' has shape ", shape_str(t.sizes()), " but its parameter has shape ",
              shape_str(param.sizes()));
  NoGradGuard no_grad;
  // A fresh copy: the loaded dict and the optimizer must not share memory that step() mutates.
  return t.to(param.device(), param.dtype(), /*non_blocking=*/false, /*copy=*/true);
}

int64_t state_step(const std::map<std::string, Tensor>& tensors, const std::string& name,
                   const std::string& prefix) {
  auto it = tensors.find(name);
  EMBER_CHECK(it != tensors.end(), ValueError, "optimizer state dict is missing '", prefix, name,
              "'");
  EMBER_CHECK(it->second.numel() == 1, ValueError, "optimizer state '", prefix, name,
              "' must hold one value, got shape ", shape_str(it->second.sizes()));
  const double v = it->second.item<double>();
  EMBER_CHECK(v >= 0 && v == std::floor(v), ValueError, "optimizer state '", prefix, name,
              "' must be a non-negative integer, got ", v);
  return static_cast<int64_t>(v);
}

void check_known_state(const std::map<std::string, Tensor>& tensors,
                       const std::vector<std::string>& known, const std::string& prefix) {
  for (const auto& [name, unused] : tensors) {
    bool ok = false;
    for (const auto& k : known) ok = ok || k == name;
    EMBER_CHECK(ok, ValueError, "unexpected key '", prefix, name, "' in optimizer state dict");
  }
}

double option_value(const std::map<std::string, double>& values, const std::string& name,
                    const char* type_name) {
  auto it = values.find(name);
  EMBER_CHECK(it != values.end(), ValueError, type_name, ": no value for option '", name, "'");
  return it->second;
}

}  // namespace detail

}  // namespace ember::optim
