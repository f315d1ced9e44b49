#pragma once
// The TCPStore server: one thread on the master rank serving every client with poll(). Requests
// that must wait (get, wait) are parked until their keys appear or their own timeout passes, so
// a connection always gets exactly one reply per request.
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distributed/socket.h"
#include "ember/distributed/tcp_store.h"

namespace ember::distributed {

class TCPStore::Server {
 public:
  // Listens on `host` (see net::listen_on) at `port`, serving at most `max_connections`.
  Server(const std::string& host, uint16_t port, int max_connections);
  // Stops the thread once every registered rank has left (bounded by `drain_timeout`, so that
  // ranks still making their last store calls when the master finishes first are served).
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const { return port_; }
  void set_drain_timeout(std::chrono::milliseconds t) { drain_timeout_ = t; }

 private:
  struct Connection {
    net::Socket socket;
    std::string in;
    std::string out;
    int rank = -1;  // registered rank, -1 when none
    bool closing = false;
    // Refused (over max_connections): told so, then drained and closed when the client closes
    // or at `refused_until`.
    bool refused = false;
    net::Clock::time_point refused_until{};
  };
  struct Waiter {
    int connection;
    std::vector<std::string> keys;
    net::Clock::time_point deadline;
    bool reply_value;  // get: reply with the value of keys[0]; wait: reply ok
  };

  void run();
  void accept_connections();
  // Answers a connection over the limit with an error and half-closes it.
  void refuse_connection(Connection& c);
  // Reads and discards what a refused client sends; false once it closed.
  bool drain(Connection& c);
  bool read_from(int id, Connection& c);
  // Handles the complete messages in c.in; false when the connection must close.
  bool take_messages(int id, Connection& c);
  // Answers `message` as an error (the connection is then closed).
  void refuse(Connection& c, const std::string& message);
  void handle(int id, Connection& c, const char* body, size_t n);
  void write_pending(Connection& c);
  void wake_waiters();
  void expire_waiters(net::Clock::time_point now);
  void drop(int id);
  bool has_all(const std::vector<std::string>& keys) const;

  net::Socket listener_;
  uint16_t port_ = 0;
  int wake_fd_[2] = {-1, -1};
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::chrono::milliseconds drain_timeout_{std::chrono::seconds(30)};

  // Owned by the server thread.
  std::map<int, Connection> connections_;
  int next_connection_ = 0;
  int max_connections_ = 1024;
  int refused_count_ = 0;  // refused connections still in connections_ (not served)
  // accept() ran out of file descriptors: the listener stays readable, so it is left out of poll()
  // until then instead of spinning.
  net::Clock::time_point accept_paused_until_{};
  std::map<std::string, std::vector<uint8_t>> data_;
  std::vector<Waiter> waiters_;
  std::vector<int> departed_;
};

}  // namespace ember::distributed
