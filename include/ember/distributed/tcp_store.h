#pragma once
// TCPStore: the store used across processes and hosts. The master (rank 0) runs the server in a
// thread; every rank, the master included, talks to it as a client over TCP.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/distributed/store.h"

namespace ember::distributed {

struct TCPStoreOptions {
  uint16_t port = 29500;  // 0 with is_master: any free port (read it back with TCPStore::port())
  bool is_master = false;
  // Ranks expected to connect; with wait_for_workers the master's constructor returns once they
  // all did (or throws at the timeout).
  std::optional<int> num_workers;
  bool wait_for_workers = true;
  std::chrono::milliseconds timeout = Store::kDefaultTimeout;
  // The most connections the master's server holds at once (its own client included); a client
  // beyond them is refused by name at its first request. init_process_group raises it to
  // world_size + 64 when that is more.
  int max_connections = 1024;
};

class EMBER_API TCPStore : public Store {
 public:
  // The largest message (a request with its key and value, or a reply) the store takes: 64 MiB.
  // A client refuses to send more (ValueError naming the key); the server answers a message
  // announced longer with an error and closes that connection, so a stray client cannot make it
  // buffer more.
  static constexpr uint32_t kMaxMessageBytes = uint32_t(64) << 20;

  // The master starts the server, listening on `host` only (0.0.0.0: on every interface; see
  // docs/distributed.md), and connects to it; the others connect to host:port, retrying until
  // the timeout so that they may start before the master.
  TCPStore(std::string host, const TCPStoreOptions& options = {});
  ~TCPStore() override;

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

  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }
  bool is_master() const;

  // Liveness, used to name the culprit when a collective fails: a rank registers its connection,
  // closes it cleanly with unregister_rank(), and the server remembers ranks whose connection
  // closed without that (the process died).
  void register_rank(int rank);
  void unregister_rank();
  std::vector<int> departed_ranks();

 private:
  class Server;
  class Client;
  std::string host_;
  uint16_t port_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Client> client_;
};

}  // namespace ember::distributed
