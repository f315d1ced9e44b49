#pragma once
// PrefixStore: the keys of another store under "prefix/" (one namespace per process group).
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/store.h"

namespace ember::distributed {

class EMBER_API PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);

  using Store::set;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t amount) override;
  std::vector<uint8_t> compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                   const std::vector<uint8_t>& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

  const std::shared_ptr<Store>& underlying_store() const { return store_; }

 private:
  std::string joined(const std::string& key) const { return prefix_ + "/" + key; }
  std::vector<std::string> joined(const std::vector<std::string>& keys) const;
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

}  // namespace ember::distributed
