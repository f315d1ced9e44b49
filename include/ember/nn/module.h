#pragma once
// nn::Module: the base class of every layer, with libtorch's interface. A module owns named
// parameters, buffers and child modules; to(), train()/eval(), zero_grad(), state_dict() and
// printing walk that tree.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/autograd.h"
#include "ember/nn/ordered_dict.h"
#include "ember/nn/pimpl.h"
#include "ember/tensor.h"

namespace ember::detail {
// Keeps the default generator's state across a scope (clone() re-runs constructors' random
// initialisation, which must not shift the random numbers the program draws afterwards).
class EMBER_API PreserveRandomState {
 public:
  PreserveRandomState();
  ~PreserveRandomState();
  PreserveRandomState(const PreserveRandomState&) = delete;
  PreserveRandomState& operator=(const PreserveRandomState&) = delete;

 private:
  uint64_t seed_, offset_;
};
}  // namespace ember::detail

namespace ember::nn {

class EMBER_API Module : public std::enable_shared_from_this<Module> {
 public:
  using ModuleApplyFunction = std::function<void(Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;
  using StateDict = OrderedDict<std::string, Tensor>;

  explicit Module(std::string name);
  Module();
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;
  Module(Module&&) noexcept = default;
  Module& operator=(Module&&) noexcept = default;
  virtual ~Module() = default;

  // The (demangled) class name, e.g. "ember::nn::LinearImpl" or "Net".
  const std::string& name() const noexcept;

  // ---- the module tree ----
  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;
  // Pre-order: this module (when include_self) and then every descendant.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(
      const std::string& name_prefix = std::string(), bool include_self = true) const;
  void apply(const ModuleApplyFunction& function);
  void apply(const NamedModuleApplyFunction& function,
             const std::string& name_prefix = std::string());

  // ---- registration ----
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor tensor);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name,
                                              std::shared_ptr<ModuleType> module) {
    EMBER_CHECK(module != nullptr, ValueError, "register_module('", name,
                "'): the module is empty (a holder constructed from nullptr?)");
    register_child(std::move(name), module);
    return module;
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name,
                                              ModuleHolder<ModuleType> module_holder) {
    EMBER_CHECK(!module_holder.is_empty(), ValueError, "register_module('", name,
                "'): the module is empty (a holder constructed from nullptr?)");
    return register_module(std::move(name), module_holder.ptr());
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name,
                                             std::shared_ptr<ModuleType> module) {
    EMBER_CHECK(module != nullptr, ValueError, "replace_module('", name, "'): the module is empty");
    children_[name] = module;
    return module;
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name,
                                             ModuleHolder<ModuleType> module_holder) {
    return replace_module(name, module_holder.ptr());
  }
  void unregister_module(const std::string& name);

  // ---- state ----
  virtual void train(bool on = true);
  void eval() { train(false); }
  virtual bool is_training() const noexcept { return is_training_; }
  // Clears (set_to_none) or zeroes the gradient of every parameter.
  virtual void zero_grad(bool set_to_none = true);

  // Moves and/or casts every parameter and buffer in place: the Tensor handles a caller holds
  // keep pointing at the moved data, as in PyTorch. A dtype applies to floating tensors only.
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);

  // Parameters and buffers by dotted name ("fc1.weight"), detached from autograd.
  StateDict state_dict() const;
  // Copies tensors into the parameters and buffers of the same names. With strict, the names
  // must match exactly; shapes must always match. Errors list every problem at once.
  void load_state_dict(const StateDict& state_dict, bool strict = true);
  void load_state_dict(const std::map<std::string, Tensor>& state_dict, bool strict = true);
  void load_state_dict(const std::vector<std::pair<std::string, Tensor>>& state_dict,
                       bool strict = true);

  // ---- printing ----
  // One line for this module alone ("Linear(in_features=2, out_features=3, bias=true)").
  virtual void pretty_print(std::ostream& stream) const;
  // This module and its children, indented as libtorch and PyTorch print them.
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;

  // ---- cloning ----
  // A deep copy (libtorch's Module::clone): new parameters and buffers with the same values
  // (moved to `device` when given), submodules cloned. Modules get it by deriving from
  // nn::Cloneable<Self> (every built-in module does); this base version throws, naming the module.
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;

  template <typename ModuleType>
  typename ModuleType::ContainedType* as() noexcept {
    return as<typename ModuleType::ContainedType>();
  }
  template <typename ModuleType, typename = std::enable_if_t<std::is_base_of_v<Module, ModuleType>>>
  ModuleType* as() noexcept {
    return dynamic_cast<ModuleType*>(this);
  }

 protected:
  // Replaces this module's state with `other`'s, a module of the same type (how a cloned
  // submodule is put in the place its parent's reset() created for it).
  virtual void clone_(Module& other, const std::optional<Device>& device);
  // The clone of `self` built by Cloneable: a copy of the object whose reset() registers fresh
  // tensors and submodules, which then receive copies of self's (without drawing random numbers).
  template <typename Derived>
  static std::shared_ptr<Derived> clone_by_reset(const Derived& self,
                                                 const std::optional<Device>& device);
  // Copies self's parameters, buffers and submodules into `copy` after its reset().
  void clone_state_into(Module& copy, const std::optional<Device>& device) const;

  // Subclasses that hold tensors outside the registered dicts may override these.
  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};

 private:
  void register_child(std::string name, std::shared_ptr<Module> module);
  void move_tensors(std::optional<Device> device, std::optional<ScalarType> dtype,
                    bool non_blocking);
  void load_state_dict_impl(const std::vector<std::pair<std::string, Tensor>>& items, bool strict);

  mutable std::optional<std::string> name_;
  bool is_training_ = true;
};

template <typename Derived>
std::shared_ptr<Derived> Module::clone_by_reset(const Derived& self,
                                                const std::optional<Device>& device) {
  NoGradGuard no_grad;
  std::shared_ptr<Derived> copy;
  {
    ::ember::detail::PreserveRandomState keep_random_numbers;
    copy = std::make_shared<Derived>(self);
    copy->parameters_.clear();
    copy->buffers_.clear();
    copy->children_.clear();
    copy->reset();
  }
  self.clone_state_into(*copy, device);
  return copy;
}

EMBER_API std::ostream& operator<<(std::ostream& stream, const Module& module);

template <typename T>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<T>& holder) {
  return stream << *holder;
}

}  // namespace ember::nn
