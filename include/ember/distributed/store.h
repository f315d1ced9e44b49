#pragma once
// Key-value stores for rendezvous (c10d::Store): ranks exchange addresses and ids through them.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/errors.h"

namespace ember::distributed {

class EMBER_API Store {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::seconds(300);

  explicit Store(std::chrono::milliseconds timeout = kDefaultTimeout) : timeout_(timeout) {}
  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  void set(const std::string& key, const std::string& value);
  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  // Blocks until `key` exists (up to timeout()), then returns its value.
  virtual std::vector<uint8_t> get(const std::string& key) = 0;
  std::string get_string(const std::string& key);
  // Adds `amount` to the integer stored at `key` (0 when absent) and returns the new value.
  virtual int64_t add(const std::string& key, int64_t amount) = 0;
  // Sets `key` to `desired` when its value is `expected` (or when it is absent and `expected` is
  // empty); returns the value the key holds afterwards.
  virtual std::vector<uint8_t> compare_set(const std::string& key,
                                           const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) = 0;
  // Whether every key exists, without waiting.
  virtual bool check(const std::vector<std::string>& keys) = 0;
  virtual bool delete_key(const std::string& key) = 0;
  virtual int64_t num_keys() = 0;
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;

  std::chrono::milliseconds timeout() const { return timeout_; }
  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

 protected:
  std::chrono::milliseconds timeout_;
};

}  // namespace ember::distributed
