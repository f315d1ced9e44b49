// Store's string conveniences and PrefixStore (every key under "prefix/").
#include "ember/distributed/store.h"

#include "ember/distributed/prefix_store.h"

namespace ember::distributed {

void Store::set(const std::string& key, const std::string& value) {
  set(key, std::vector<uint8_t>(value.begin(), value.end()));
}

std::string Store::get_string(const std::string& key) {
  auto v = get(key);
  return std::string(v.begin(), v.end());
}

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store ? store->timeout() : kDefaultTimeout),
      prefix_(std::move(prefix)),
      store_(std::move(store)) {
  EMBER_CHECK(store_ != nullptr, ValueError, "PrefixStore('", prefix_, "'): the store is null");
}

std::vector<std::string> PrefixStore::joined(const std::vector<std::string>& keys) const {
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (const auto& k : keys) out.push_back(joined(k));
  return out;
}

void PrefixStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  store_->set(joined(key), value);
}
std::vector<uint8_t> PrefixStore::get(const std::string& key) {
  return store_->get(joined(key));
}
int64_t PrefixStore::add(const std::string& key, int64_t amount) {
  return store_->add(joined(key), amount);
}
std::vector<uint8_t> PrefixStore::compare_set(const std::string& key,
                                              const std::vector<uint8_t>& expected,
                                              const std::vector<uint8_t>& desired) {
  return store_->compare_set(joined(key), expected, desired);
}
bool PrefixStore::check(const std::vector<std::string>& keys) {
  return store_->check(joined(keys));
}
bool PrefixStore::delete_key(const std::string& key) {
  return store_->delete_key(joined(key));
}
int64_t PrefixStore::num_keys() {
  return store_->num_keys();
}
void PrefixStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  store_->wait(joined(keys), timeout);
}

}  // namespace ember::distributed
