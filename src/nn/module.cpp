// nn::Module: registration, traversal, in-place device/dtype moves, state dicts and printing.
#include "ember/nn/module.h"

#include "core/generator.h"

#include <cxxabi.h>

#include <cstdlib>
#include <set>
#include <sstream>
#include <typeinfo>

namespace ember::nn {
namespace {

std::string demangle(const char* mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status != 0 || d == nullptr) return mangled;
  std::string out(d);
  std::free(d);
  return out;
}

void check_name(const std::string& name, const char* what) {
  EMBER_CHECK(!name.empty(), ValueError, what, " name must not be empty");
  EMBER_CHECK(name.find('.') == std::string::npos, ValueError, what,
              " name must not contain a dot (got '", name, "')");
}

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// Points `t`'s TensorImpl at `moved`'s storage, so every handle to `t` sees the move.
void swap_in(const Tensor& t, const Tensor& moved) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  impl->set_storage(moved.impl()->storage(), moved.storage_offset(), moved.dtype());
  impl->set_sizes_strides(moved.sizes(), moved.strides());
}

// Every tensor takes the new dtype, integer buffers (num_batches_tracked) included, as libtorch
// 1.13's C++ Module::to does; Python's Module keeps integer tensors (PyTorch's Python rule).
Tensor converted(const Tensor& t, std::optional<Device> device, std::optional<ScalarType> dtype,
                 bool non_blocking) {
  const ScalarType dt = dtype.value_or(t.dtype());
  return t.to(device.value_or(t.device()), dt, non_blocking);
}

// The class name without namespaces or a trailing "Impl", as Python prints it.
std::string display_name(std::string n) {
  const size_t template_start = n.find('<');
  const size_t colon = n.rfind("::", template_start);
  if (colon != std::string::npos) n = n.substr(colon + 2);
  if (n.size() > 4 && n.compare(n.size() - 4, 4, "Impl") == 0) n.resize(n.size() - 4);
  return n;
}

std::string shape_str(IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

const std::string& Module::name() const noexcept {
  if (!name_) name_ = demangle(typeid(*this).name());
  return *name_;
}

// ---- traversal ----
std::vector<Tensor> Module::parameters(bool recurse) const {
  return named_parameters(recurse).values();
}

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, Tensor> out("Parameter");
  std::set<const TensorImpl*> seen;  // a parameter shared by two modules is listed once
  auto add = [&](const std::string& prefix, const Module& m) {
    for (const auto& it : m.parameters_) {
      if (!it.value().defined() || !seen.insert(it.value().unsafeGetTensorImpl()).second) continue;
      out.insert(join(prefix, it.key()), it.value());
    }
  };
  if (!recurse) {
    add("", *this);
    return out;
  }
  for (const auto& it : named_modules()) add(it.key(), *it.value());
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  return named_buffers(recurse).values();
}

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, Tensor> out("Buffer");
  auto add = [&](const std::string& prefix, const Module& m) {
    for (const auto& it : m.buffers_) {
      if (it.value().defined()) out.insert(join(prefix, it.key()), it.value());
    }
  };
  if (!recurse) {
    add("", *this);
    return out;
  }
  for (const auto& it : named_modules()) add(it.key(), *it.value());
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  return children_.values();
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const {
  return children_;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules("", include_self).values();
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(
    const std::string& name_prefix, bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> out("Module");
  std::set<const Module*> seen;
  std::function<void(const std::string&, const Module&)> visit = [&](const std::string& prefix,
                                                                     const Module& m) {
    for (const auto& it : m.children_) {
      if (!seen.insert(it.value().get()).second) continue;
      const std::string name = join(prefix, it.key());
      out.insert(name, it.value());
      visit(name, *it.value());
    }
  };
  if (include_self) {
    // A module that is not owned by a shared_ptr (a plain stack object) still lists itself.
    std::shared_ptr<Module> self;
    try {
      self = std::const_pointer_cast<Module>(shared_from_this());
    } catch (const std::bad_weak_ptr&) {
      self = std::shared_ptr<Module>(const_cast<Module*>(this), [](Module*) {});
    }
    out.insert(name_prefix, self);
  }
  seen.insert(this);
  visit(name_prefix, *this);
  return out;
}

void Module::apply(const ModuleApplyFunction& function) {
  function(*this);
  for (const auto& it : children_) it.value()->apply(function);
}

void Module::apply(const NamedModuleApplyFunction& function, const std::string& name_prefix) {
  function(name_prefix, *this);
  for (const auto& it : children_) it.value()->apply(function, join(name_prefix, it.key()));
}

// ---- registration ----
Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_name(name, "Parameter");
  if (tensor.defined()) tensor.set_requires_grad(requires_grad);
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  check_name(name, "Buffer");
  return buffers_.insert(std::move(name), std::move(tensor));
}

void Module::register_child(std::string name, std::shared_ptr<Module> module) {
  check_name(name, "Submodule");
  children_.insert(std::move(name), std::move(module));
}

void Module::unregister_module(const std::string& name) {
  EMBER_CHECK(children_.contains(name), ValueError, "No Module with name `", name,
              "` is registered");
  children_.erase(name);
}

// ---- state ----
void Module::train(bool on) {
  for (const auto& it : children_) it.value()->train(on);
  is_training_ = on;
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters()) {
    Tensor& g = p.mutable_grad();
    if (!g.defined()) continue;
    if (set_to_none) {
      g.reset();
    } else {
      NoGradGuard no_grad;
      g.zero_();
    }
  }
}

void Module::move_tensors(std::optional<Device> device, std::optional<ScalarType> dtype,
                          bool non_blocking) {
  NoGradGuard no_grad;
  std::set<const TensorImpl*> done;
  auto move = [&](const Tensor& t) {
    if (!t.defined() || !done.insert(t.unsafeGetTensorImpl()).second) return;
    Tensor moved = converted(t, device, dtype, non_blocking);
    if (!moved.is_same(t)) swap_in(t, moved);
    const Tensor& g = t.grad();
    if (g.defined()) {
      Tensor mg = converted(g, device, dtype, non_blocking);
      if (!mg.is_same(g)) swap_in(g, mg);
    }
  };
  for (const auto& m : modules()) {
    for (const auto& it : m->parameters_) move(it.value());
    for (const auto& it : m->buffers_) move(it.value());
  }
}

std::shared_ptr<Module> Module::clone(const std::optional<Device>&) const {
  throw NotImplementedError(detail::str_cat(
      "clone() has not been implemented for ", name(), ". Subclass ember::nn::Cloneable<", name(),
      "> instead of ember::nn::Module (and implement reset()) to inherit the ability to clone"));
}

void Module::clone_(Module&, const std::optional<Device>&) {
  throw NotImplementedError(detail::str_cat(
      "clone() has not been implemented for ", name(), ". Subclass ember::nn::Cloneable<", name(),
      "> instead of ember::nn::Module (and implement reset()) to inherit the ability to clone"));
}

void Module::clone_state_into(Module& copy, const std::optional<Device>& device) const {
  NoGradGuard no_grad;
  auto copy_tensors = [&](const OrderedDict<std::string, Tensor>& from,
                          OrderedDict<std::string, Tensor>& to, const char* what) {
    auto names = [](const std::vector<std::string>& keys) {
      std::string out;
      for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
      return "(" + out + ")";
    };
    EMBER_CHECK(from.keys() == to.keys(), Error, "clone(): reset() of ", name(), " registered the ",
                what, "s ", names(to.keys()), " but the module has ", names(from.keys()),
                ": reset() must create what the constructor creates");
    for (const auto& item : from) {
      const Tensor& src = item.value();
      Tensor& dst = to[item.key()];
      if (!src.defined()) {
        dst = Tensor();
        continue;
      }
      Tensor data = src.detach().to(device.value_or(src.device()), /*non_blocking=*/false,
                                    /*copy=*/true);
      if (!dst.defined()) dst = data;
      swap_in(dst, data);
      dst.set_requires_grad(src.requires_grad());
    }
  };
  copy_tensors(parameters_, copy.parameters_, "parameter");
  copy_tensors(buffers_, copy.buffers_, "buffer");
  for (const auto& child : children_) {
    std::shared_ptr<Module>* slot = copy.children_.find(child.key());
    EMBER_CHECK(slot != nullptr, Error, "clone(): reset() of ", name(),
                " did not register the submodule '", child.key(), "'");
    (*slot)->clone_(*child.value(), device);
  }
}

}  // namespace ember::nn

namespace ember::detail {
PreserveRandomState::PreserveRandomState() {
  PhiloxState s = generator_state();
  seed_ = s.seed;
  offset_ = s.offset;
}
PreserveRandomState::~PreserveRandomState() {
  set_generator_state(PhiloxState{seed_, offset_});
}
}  // namespace ember::detail

namespace ember::nn {

void Module::to(Device device, ScalarType dtype, bool non_blocking) {
  move_tensors(device, dtype, non_blocking);
}
void Module::to(ScalarType dtype, bool non_blocking) {
  EMBER_CHECK(is_floating_point(dtype), TypeError,
              "nn.Module.to only accepts floating point dtypes, but got desired dtype=",
              python_name(dtype));
  move_tensors(std::nullopt, dtype, non_blocking);
}
void Module::to(Device device, bool non_blocking) {
  move_tensors(device, std::nullopt, non_blocking);
}

Module::StateDict Module::state_dict() const {
  StateDict out("Key");
  for (const auto& mod : named_modules()) {
    for (const auto& it : mod.value()->parameters_) {
      if (it.value().defined()) out.insert(join(mod.key(), it.key()), it.value().detach());
    }
    for (const auto& it : mod.value()->buffers_) {
      if (it.value().defined()) out.insert(join(mod.key(), it.key()), it.value().detach());
    }
  }
  return out;
}

void Module::load_state_dict_impl(const std::vector<std::pair<std::string, Tensor>>& items,
                                  bool strict) {
  // Every destination by name (shared tensors appear under each of their names).
  std::vector<std::pair<std::string, Tensor>> targets;
  for (const auto& mod : named_modules()) {
    for (const auto& it : mod.value()->parameters_) {
      if (it.value().defined()) targets.emplace_back(join(mod.key(), it.key()), it.value());
    }
    for (const auto& it : mod.value()->buffers_) {
      if (it.value().defined()) targets.emplace_back(join(mod.key(), it.key()), it.value());
    }
  }
  std::map<std::string, Tensor> given;
  for (const auto& [k, v] : items) given[k] = v;

  std::vector<std::string> missing, unexpected, mismatched;
  std::set<std::string> known;
  for (const auto& [name, t] : targets) {
    known.insert(name);
    auto it = given.find(name);
    if (it == given.end()) {
      missing.push_back(name);
    } else if (!it->second.defined() || it->second.sizes() != t.sizes()) {
      mismatched.push_back(detail::str_cat(
          "size mismatch for ", name, ": copying a param with shape ",
          it->second.defined() ? shape_str(it->second.sizes()) : std::string("<undefined>"),
          " from checkpoint, the shape in current model is ", shape_str(t.sizes()), "."));
    }
  }
  for (const auto& [k, v] : items) {
    if (!known.count(k)) unexpected.push_back(k);
  }
  const bool bad_keys = strict && (!missing.empty() || !unexpected.empty());
  if (bad_keys || !mismatched.empty()) {
    std::ostringstream os;
    os << "Error(s) in loading state_dict for " << display_name(name()) << ":";
    auto list = [&](const char* what, const std::vector<std::string>& keys) {
      if (keys.empty()) return;
      os << "\n\t" << what << " key(s) in state_dict: ";
      for (size_t i = 0; i < keys.size(); ++i) os << (i ? ", " : "") << '"' << keys[i] << '"';
      os << '.';
    };
    if (strict) {
      list("Missing", missing);
      list("Unexpected", unexpected);
    }
    for (const auto& m : mismatched) os << "\n\t" << m;
    throw ValueError(os.str());
  }
  NoGradGuard no_grad;
  for (const auto& [name, t] : targets) {
    auto it = given.find(name);
    if (it == given.end()) continue;
    Tensor dst = t;  // the handle shares t's impl: copy_ writes into the parameter itself
    dst.copy_(it->second);
  }
}

void Module::load_state_dict(const StateDict& state_dict, bool strict) {
  load_state_dict_impl(state_dict.pairs(), strict);
}
void Module::load_state_dict(const std::map<std::string, Tensor>& state_dict, bool strict) {
  load_state_dict_impl({state_dict.begin(), state_dict.end()}, strict);
}
void Module::load_state_dict(const std::vector<std::pair<std::string, Tensor>>& state_dict,
                             bool strict) {
  load_state_dict_impl(state_dict, strict);
}

// ---- printing ----
// As libtorch: a module without its own pretty_print prints its C++ class name in full
// ("NetImpl", "my::BlockImpl"); Ember's own modules print "ember::nn::Linear(...)" as libtorch's
// print "torch::nn::Linear(...)".
void Module::pretty_print(std::ostream& stream) const {
  stream << name();
}

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.is_empty()) return;
  stream << "(\n";
  const std::string next = indentation + "  ";
  for (const auto& it : children_) {
    stream << next << "(" << it.key() << "): ";
    it.value()->pretty_print_recursive(stream, next);
    stream << '\n';
  }
  stream << indentation << ")";
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print_recursive(stream, "");
  return stream;
}

}  // namespace ember::nn
