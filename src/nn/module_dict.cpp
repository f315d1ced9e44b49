// ModuleDict and Functional, libtorch's keyed container and function-as-module.
#include "ember/nn/modules/module_dict.h"
#include "ember/nn/modules/functional.h"

namespace ember::nn {

std::shared_ptr<Module> ModuleDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleDictImpl>();
  copy->train(is_training());
  for (const auto& item : modules_) copy->insert(item.key(), item.value()->clone(device));
  return copy;
}

void ModuleDictImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::ModuleDict";
}

void ModuleDictImpl::clear() {
  for (const auto& key : modules_.keys()) unregister_module(key);
  modules_.clear();
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  std::shared_ptr<Module> module = (*this)[key];
  modules_.erase(key);
  unregister_module(key);
  return module;
}

std::shared_ptr<Module> ModuleDictImpl::operator[](const std::string& key) const {
  const std::shared_ptr<Module>* m = modules_.find(key);
  EMBER_CHECK(m != nullptr, IndexError, "ModuleDict: no module under the key '", key, "' (",
              modules_.size(), " keys)");
  return *m;
}

void ModuleDictImpl::insert(const std::string& key, std::shared_ptr<Module> module) {
  EMBER_CHECK(module != nullptr, ValueError, "ModuleDict: cannot insert an empty module under '",
              key, "'");
  if (contains(key)) {
    modules_[key] = module;
    replace_module(key, module);
  } else {
    register_module(key, module);
    modules_.insert(key, std::move(module));
  }
}

FunctionalImpl::FunctionalImpl(Function function) : function_(std::move(function)) {
  EMBER_CHECK(static_cast<bool>(function_), ValueError, "Functional: the function is empty");
}

Tensor FunctionalImpl::forward(Tensor input) {
  return function_(std::move(input));
}

void FunctionalImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Functional()";
}

}  // namespace ember::nn
