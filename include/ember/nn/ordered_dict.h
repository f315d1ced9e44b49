#pragma once
// OrderedDict: an insertion-ordered map with libtorch's interface, used for named parameters,
// buffers, children and state dicts (iteration yields items with key() and value()).
#include <cstddef>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/error.h"

namespace ember {

template <typename Key, typename Value>
class OrderedDict {
 public:
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    const Key& key() const noexcept { return pair_.first; }
    Value& value() noexcept { return pair_.second; }
    const Value& value() const noexcept { return pair_.second; }
    Value& operator*() noexcept { return value(); }
    const Value& operator*() const noexcept { return value(); }
    Value* operator->() noexcept { return &value(); }
    const Value* operator->() const noexcept { return &value(); }
    const std::pair<Key, Value>& pair() const noexcept { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };
  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  explicit OrderedDict(std::string key_description = "Key")
      : key_description_(std::move(key_description)) {}
  OrderedDict(std::initializer_list<Item> items) {
    for (const Item& it : items) insert(it.key(), it.value());
  }

  // Inserts a new key; a key that exists already is an error naming it.
  template <typename K, typename V>
  Value& insert(K&& key, V&& value) {
    Key k(std::forward<K>(key));
    EMBER_CHECK(index_.count(k) == 0, ValueError, key_description_, " '", k, "' already defined");
    index_.emplace(k, items_.size());
    items_.emplace_back(std::move(k), Value(std::forward<V>(value)));
    return items_.back().value();
  }
  // Inserts, or overwrites the value of an existing key in place.
  Value& insert_or_assign(const Key& key, Value value) {
    if (Value* v = find(key)) {
      *v = std::move(value);
      return *v;
    }
    return insert(key, std::move(value));
  }
  void update(const OrderedDict& other) {
    for (const Item& it : other) insert_or_assign(it.key(), it.value());
  }

  Value* find(const Key& key) noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  bool contains(const Key& key) const noexcept { return find(key) != nullptr; }
  Value& operator[](const Key& key) {
    Value* v = find(key);
    EMBER_CHECK(v, IndexError, key_description_, " '", key, "' is not defined");
    return *v;
  }
  const Value& operator[](const Key& key) const {
    const Value* v = find(key);
    EMBER_CHECK(v, IndexError, key_description_, " '", key, "' is not defined");
    return *v;
  }
  Item& operator[](size_t index) { return at_index(index); }
  const Item& operator[](size_t index) const {
    return const_cast<OrderedDict*>(this)->at_index(index);
  }
  // Removes a key (order of the rest is kept).
  void erase(const Key& key) {
    auto it = index_.find(key);
    EMBER_CHECK(it != index_.end(), IndexError, key_description_, " '", key, "' is not defined");
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(it->second));
    rebuild_index();
  }

  Iterator begin() { return items_.begin(); }
  Iterator end() { return items_.end(); }
  ConstIterator begin() const { return items_.begin(); }
  ConstIterator end() const { return items_.end(); }
  Item& front() { return items_.front(); }
  Item& back() { return items_.back(); }
  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }
  bool empty() const noexcept { return items_.empty(); }
  void clear() {
    items_.clear();
    index_.clear();
  }
  void reserve(size_t n) { items_.reserve(n); }
  const std::vector<Item>& items() const noexcept { return items_; }
  std::vector<Key> keys() const {
    std::vector<Key> out;
    out.reserve(items_.size());
    for (const Item& it : items_) out.push_back(it.key());
    return out;
  }
  std::vector<Value> values() const {
    std::vector<Value> out;
    out.reserve(items_.size());
    for (const Item& it : items_) out.push_back(it.value());
    return out;
  }
  std::vector<std::pair<Key, Value>> pairs() const {
    std::vector<std::pair<Key, Value>> out;
    out.reserve(items_.size());
    for (const Item& it : items_) out.push_back(it.pair());
    return out;
  }
  // So that ember::save(module->state_dict(), path) works directly.
  operator std::vector<std::pair<Key, Value>>() const { return pairs(); }
  const std::string& key_description() const noexcept { return key_description_; }

 private:
  Item& at_index(size_t index) {
    EMBER_CHECK(index < items_.size(), IndexError, "Index ", index,
                " is out of bounds for an OrderedDict of size ", items_.size());
    return items_[index];
  }
  void rebuild_index() {
    index_.clear();
    for (size_t i = 0; i < items_.size(); ++i) index_.emplace(items_[i].key(), i);
  }
  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
  std::string key_description_ = "Key";
};

}  // namespace ember
