#pragma once
// ModuleDict: modules registered under string keys, in insertion order (libtorch's
// torch::nn::ModuleDict).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/ordered_dict.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API ModuleDictImpl : public Cloneable<ModuleDictImpl> {
 public:
  using Iterator = OrderedDict<std::string, std::shared_ptr<Module>>::Iterator;
  using ConstIterator = OrderedDict<std::string, std::shared_ptr<Module>>::ConstIterator;

  ModuleDictImpl() = default;
  explicit ModuleDictImpl(
      const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
    update(modules);
  }
  explicit ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules) {
    update(modules);
  }

  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;

  std::vector<std::pair<std::string, std::shared_ptr<Module>>> items() const {
    return modules_.pairs();
  }
  std::vector<std::string> keys() const { return modules_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return modules_.values(); }
  Iterator begin() { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator begin() const { return modules_.begin(); }
  ConstIterator end() const { return modules_.end(); }
  size_t size() const noexcept { return modules_.size(); }
  bool empty() const noexcept { return modules_.is_empty(); }
  bool contains(const std::string& key) const noexcept { return modules_.contains(key); }

  // Removes every module (and its registration, so its parameters leave parameters()).
  void clear();
  // Removes and returns the module under `key`.
  std::shared_ptr<Module> pop(const std::string& key);

  std::shared_ptr<Module> operator[](const std::string& key) const;
  template <typename T>
  T& at(const std::string& key) {
    static_assert(std::is_base_of_v<Module, T>, "T must be a Module (an Impl class)");
    T* m = (*this)[key]->template as<T>();
    EMBER_CHECK(m != nullptr, TypeError, "ModuleDict: the module under '", key, "' is a ",
                (*this)[key]->name(), ", not the requested type");
    return *m;
  }

  // Adds or replaces the module under `key`.
  void insert(const std::string& key, std::shared_ptr<Module> module);
  template <typename M>
  void insert(const std::string& key, const ModuleHolder<M>& holder) {
    insert(key, std::static_pointer_cast<Module>(holder.ptr()));
  }
  void update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
    for (const auto& [key, module] : modules) insert(key, module);
  }
  // From another ModuleDict or an OrderedDict of modules (items with key() and value()).
  template <typename Container>
  void update(const Container& container) {
    for (const auto& item : container) insert(item.key(), item.value());
  }

 private:
  OrderedDict<std::string, std::shared_ptr<Module>> modules_{"Key"};
};
EMBER_MODULE(ModuleDict);

}  // namespace ember::nn
