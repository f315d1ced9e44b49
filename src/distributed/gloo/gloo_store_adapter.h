#pragma once
// Gloo's rendezvous asks a gloo::rendezvous::Store for the peers' addresses: this one forwards to
// an Ember store (a PrefixStore over the TCPStore), so Gloo and the user share one rendezvous.
#include <gloo/rendezvous/store.h>

#include <memory>

#include "ember/distributed/store.h"

namespace ember::distributed {

class GlooStoreAdapter : public ::gloo::rendezvous::Store {
 public:
  explicit GlooStoreAdapter(std::shared_ptr<distributed::Store> store) : store_(std::move(store)) {}

  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, std::vector<uint8_t>(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    auto v = store_->get(key);
    return std::vector<char>(v.begin(), v.end());
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

}  // namespace ember::distributed
