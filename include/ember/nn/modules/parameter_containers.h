#pragma once
// ParameterList and ParameterDict: parameters registered under their index ("0", "1", ...) or a
// key, in insertion order (libtorch's torch::nn::ParameterList / ParameterDict). They hold
// tensors, not modules, so a model with a variable number of weights is one module.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/ordered_dict.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API ParameterListImpl : public Cloneable<ParameterListImpl> {
 public:
  using Iterator = OrderedDict<std::string, Tensor>::Iterator;
  using ConstIterator = OrderedDict<std::string, Tensor>::ConstIterator;

  ParameterListImpl() = default;
  template <typename... Tensors>
  explicit ParameterListImpl(const Tensors&... params) {
    (append(params), ...);
  }

  void reset() override {}
  // A deep copy (libtorch's clone of a ParameterList fails: its reset() creates nothing).
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;

  // Registers `param` as parameter size(), keeping its requires_grad.
  void append(const Tensor& param);
  void append(const OrderedDict<std::string, Tensor>::Item& item) { append(item.value()); }
  template <typename Container>
  void extend(const Container& container) {
    for (const auto& param : container) append(param);
  }
  template <typename Container>
  ParameterListImpl& operator+=(const Container& other) {
    extend(other);
    return *this;
  }

  Iterator begin() { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator begin() const { return parameters_.begin(); }
  ConstIterator end() const { return parameters_.end(); }
  // The idx-th parameter; an index past the end is an IndexError naming both.
  Tensor& at(size_t idx);
  const Tensor& at(size_t idx) const;
  Tensor& operator[](size_t idx) { return at(idx); }
  const Tensor& operator[](size_t idx) const { return at(idx); }
  size_t size() const noexcept { return parameters_.size(); }
  bool is_empty() const noexcept { return parameters_.is_empty(); }
};
EMBER_MODULE(ParameterList);

class EMBER_API ParameterDictImpl : public Cloneable<ParameterDictImpl> {
 public:
  using Iterator = OrderedDict<std::string, Tensor>::Iterator;
  using ConstIterator = OrderedDict<std::string, Tensor>::ConstIterator;

  ParameterDictImpl() = default;
  explicit ParameterDictImpl(const OrderedDict<std::string, Tensor>& params) { update(params); }

  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;

  // Registers `param` under `key` (keeping its requires_grad); an existing key is an error.
  Tensor& insert(std::string key, Tensor param);
  // Removes `key` and returns its tensor; a missing key is an IndexError naming it.
  Tensor pop(const std::string& key);
  std::vector<std::string> keys() const { return parameters_.keys(); }
  std::vector<Tensor> values() const { return parameters_.values(); }
  Iterator begin() { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator begin() const { return parameters_.begin(); }
  ConstIterator end() const { return parameters_.end(); }
  size_t size() const noexcept { return parameters_.size(); }
  bool empty() const noexcept { return parameters_.is_empty(); }
  bool contains(const std::string& key) const noexcept { return parameters_.contains(key); }
  void clear() { parameters_.clear(); }
  // Inserts or overwrites each (key, tensor) of `container` (an OrderedDict or a ParameterDict).
  template <typename Container>
  void update(const Container& container) {
    for (const auto& item : container) {
      if (contains(item.key())) {
        parameters_[item.key()] = item.value();
      } else {
        insert(item.key(), item.value());
      }
    }
  }
  const Tensor& get(const std::string& key) const { return parameters_[key]; }
  Tensor& get(const std::string& key) { return parameters_[key]; }
  Tensor& operator[](const std::string& key) { return get(key); }
  const Tensor& operator[](const std::string& key) const { return get(key); }
};
EMBER_MODULE(ParameterDict);

}  // namespace ember::nn
