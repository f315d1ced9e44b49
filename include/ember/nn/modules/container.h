#pragma once
// Containers: Sequential (chains single-tensor forwards) and ModuleList (holds modules without
// a forward), with AnyModule as the type-erased element, as in libtorch.
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

namespace detail {
// Whether m.forward(tensor) compiles and gives a Tensor (overloaded or templated forwards
// included; an LSTM's forward returns a tuple, so it is held without a forward).
template <typename M, typename = void>
struct has_tensor_forward : std::false_type {};
template <typename M>
struct has_tensor_forward<
    M, std::void_t<decltype(std::declval<M&>().forward(std::declval<const Tensor&>()))>>
    : std::is_convertible<decltype(std::declval<M&>().forward(std::declval<const Tensor&>())),
                          Tensor> {};
template <typename T, typename = void>
struct has_contained : std::false_type {};
template <typename T>
struct has_contained<T, std::void_t<typename std::decay_t<T>::ContainedType>> : std::true_type {};
}  // namespace detail

// Any module, with its forward(Tensor) kept when it has one.
class AnyModule {
 public:
  AnyModule() = default;
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, M>>>
  explicit AnyModule(std::shared_ptr<M> module) : module_(module) {
    if constexpr (detail::has_tensor_forward<M>::value) {
      forward_ = [m = module.get()](const Tensor& x) -> Tensor { return m->forward(x); };
    }
    // A clone is of the same type: wrap it as this one was.
    wrap_ = [](std::shared_ptr<Module> m) { return AnyModule(std::static_pointer_cast<M>(m)); };
  }
  template <typename M>
  explicit AnyModule(const ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}
  // A module passed by value (e.g. SequentialImpl(LinearImpl(2, 3))) is moved into a shared_ptr.
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>> &&
                                                    !detail::has_contained<M>::value>>
  explicit AnyModule(M&& module)
      : AnyModule(std::make_shared<std::decay_t<M>>(std::forward<M>(module))) {}

  bool is_empty() const noexcept { return module_ == nullptr; }
  bool has_forward() const noexcept { return static_cast<bool>(forward_); }
  Tensor forward(const Tensor& input) const {
    EMBER_CHECK(module_ != nullptr, Error, "Cannot call forward() on an empty AnyModule");
    EMBER_CHECK(forward_, TypeError, "Module ", module_->name(),
                " has no forward(const Tensor&) to chain in a Sequential");
    return forward_(input);
  }
  const std::shared_ptr<Module>& ptr() const noexcept { return module_; }
  // The module's clone (Module::clone), wrapped as this one is.
  AnyModule clone(const std::optional<Device>& device = std::nullopt) const {
    EMBER_CHECK(module_ != nullptr, Error, "Cannot clone an empty AnyModule");
    return wrap_(module_->clone(device));
  }
  template <typename T>
  std::shared_ptr<T> ptr() const {
    auto p = std::dynamic_pointer_cast<T>(module_);
    EMBER_CHECK(p != nullptr, TypeError, "Attempted to cast module of type ",
                module_ ? module_->name() : std::string("<empty>"), " to the wrong type");
    return p;
  }
  template <typename T>
  T& get() const {
    return *ptr<T>();
  }

 private:
  std::shared_ptr<Module> module_;
  std::function<Tensor(const Tensor&)> forward_;
  std::function<AnyModule(std::shared_ptr<Module>)> wrap_;
};

// A name and a module, for Sequential({{"fc1", Linear(2, 3)}, {"act", ReLU()}}).
class NamedAnyModule {
 public:
  template <typename M>
  NamedAnyModule(std::string name, M&& module)
      : name_(std::move(name)), module_(std::forward<M>(module)) {}
  NamedAnyModule(std::string name, AnyModule module)
      : name_(std::move(name)), module_(std::move(module)) {}
  const std::string& name() const noexcept { return name_; }
  const AnyModule& module() const noexcept { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

class EMBER_API SequentialImpl : public Cloneable<SequentialImpl> {
 public:
  // A Sequential is built by push_back, not by its constructor: clone() clones each module.
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  using Iterator = std::vector<AnyModule>::iterator;
  using ConstIterator = std::vector<AnyModule>::const_iterator;

  SequentialImpl() = default;
  template <typename... Modules>
  explicit SequentialImpl(Modules&&... modules) {
    modules_.reserve(sizeof...(Modules));
    (push_back(std::forward<Modules>(modules)), ...);
  }
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {
    for (const auto& m : named_modules) push_back(m.name(), m.module());
  }

  // Appends under the name "<index>".
  template <typename M>
  void push_back(M&& module) {
    push_back(std::to_string(modules_.size()), std::forward<M>(module));
  }
  template <typename M>
  void push_back(std::string name, M&& module) {
    push_back(std::move(name), AnyModule(std::forward<M>(module)));
  }
  void push_back(std::string name, AnyModule module);
  void push_back(AnyModule module) {
    push_back(std::to_string(modules_.size()), std::move(module));
  }
  template <typename Container>
  void extend(const Container& container) {
    for (const auto& m : container) push_back(m);
  }

  // Runs the modules in order, each on the previous one's output.
  Tensor forward(const Tensor& input);

  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  std::shared_ptr<Module> ptr(size_t index) const;
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    check_index(index);
    return modules_[index].ptr<T>();
  }
  template <typename T>
  T& at(size_t index) {
    return *ptr<T>(index);
  }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  Iterator begin() { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator begin() const { return modules_.begin(); }
  ConstIterator end() const { return modules_.end(); }
  void pretty_print(std::ostream& stream) const override;

 private:
  void check_index(size_t index) const;
  std::vector<AnyModule> modules_;
};

class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  Sequential() : ModuleHolder() {}
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder(std::make_shared<SequentialImpl>(named_modules)) {}
};

class EMBER_API ModuleListImpl : public Cloneable<ModuleListImpl> {
 public:
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  using Iterator = std::vector<std::shared_ptr<Module>>::iterator;
  using ConstIterator = std::vector<std::shared_ptr<Module>>::const_iterator;

  ModuleListImpl() = default;
  template <typename... Modules>
  explicit ModuleListImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }

  void push_back(std::shared_ptr<Module> module);
  template <typename M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(std::static_pointer_cast<Module>(holder.ptr()));
  }
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>> &&
                                                    !detail::has_contained<M>::value>>
  void push_back(M&& module) {
    push_back(std::static_pointer_cast<Module>(
        std::make_shared<std::decay_t<M>>(std::forward<M>(module))));
  }
  template <typename Container>
  void extend(const Container& container) {
    for (const auto& m : container) push_back(m);
  }
  // Inserts before `index`; later modules are renamed to keep names equal to positions.
  void insert(size_t index, std::shared_ptr<Module> module);
  template <typename M>
  void insert(size_t index, const ModuleHolder<M>& holder) {
    insert(index, std::static_pointer_cast<Module>(holder.ptr()));
  }

  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  std::shared_ptr<Module> ptr(size_t index) const;
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    auto p = std::dynamic_pointer_cast<T>(ptr(index));
    EMBER_CHECK(p != nullptr, TypeError, "Unable to cast module[", index, "] of type ",
                ptr(index)->name(), " to the requested type");
    return p;
  }
  template <typename T>
  T& at(size_t index) {
    return *ptr<T>(index);
  }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  Iterator begin() { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator begin() const { return modules_.begin(); }
  ConstIterator end() const { return modules_.end(); }
  void pretty_print(std::ostream& stream) const override;

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

}  // namespace ember::nn
