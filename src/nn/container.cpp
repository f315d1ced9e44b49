// Sequential and ModuleList.
#include "ember/nn/modules/container.h"

namespace ember::nn {

void SequentialImpl::push_back(std::string name, AnyModule module) {
  EMBER_CHECK(!module.is_empty(), ValueError, "Sequential: cannot add an empty module as '", name,
              "'");
  register_module(std::move(name), module.ptr());
  modules_.push_back(std::move(module));
}

Tensor SequentialImpl::forward(const Tensor& input) {
  EMBER_CHECK(!modules_.empty(), ValueError, "Cannot call forward() on an empty Sequential");
  Tensor x = modules_.front().forward(input);
  for (size_t i = 1; i < modules_.size(); ++i) x = modules_[i].forward(x);
  return x;
}

std::shared_ptr<Module> SequentialImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<SequentialImpl>();
  copy->train(is_training());  // before it has children: this module's own mode
  for (size_t i = 0; i < modules_.size(); ++i) {
    copy->push_back(children_[i].key(), modules_[i].clone(device));
  }
  return copy;
}

void SequentialImpl::check_index(size_t index) const {
  EMBER_CHECK(index < modules_.size(), IndexError, "Index ", index,
              " is out of range for a Sequential of size ", modules_.size());
}

std::shared_ptr<Module> SequentialImpl::ptr(size_t index) const {
  check_index(index);
  return modules_[index].ptr();
}

void SequentialImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Sequential";
}

std::shared_ptr<Module> ModuleListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleListImpl>();
  copy->train(is_training());
  for (const auto& m : modules_) copy->push_back(m->clone(device));
  return copy;
}

void ModuleListImpl::push_back(std::shared_ptr<Module> module) {
  EMBER_CHECK(module != nullptr, ValueError, "ModuleList: cannot add an empty module");
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

void ModuleListImpl::insert(size_t index, std::shared_ptr<Module> module) {
  EMBER_CHECK(index <= modules_.size(), IndexError, "Index ", index,
              " is out of range for inserting into a ModuleList of size ", modules_.size());
  EMBER_CHECK(module != nullptr, ValueError, "ModuleList: cannot insert an empty module");
  modules_.insert(modules_.begin() + static_cast<std::ptrdiff_t>(index), std::move(module));
  children_.clear();
  for (size_t i = 0; i < modules_.size(); ++i) children_.insert(std::to_string(i), modules_[i]);
}

std::shared_ptr<Module> ModuleListImpl::ptr(size_t index) const {
  EMBER_CHECK(index < modules_.size(), IndexError, "Index ", index,
              " is out of range for a ModuleList of size ", modules_.size());
  return modules_[index];
}

void ModuleListImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::ModuleList";
}

}  // namespace ember::nn
