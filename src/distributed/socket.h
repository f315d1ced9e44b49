#pragma once
// Blocking TCP sockets with deadlines, for the rendezvous store (the collectives never use these:
// Gloo and NCCL have their own transports).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ember::distributed::net {

using Clock = std::chrono::steady_clock;

// An owned file descriptor.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() { close(); }
  Socket(Socket&& o) noexcept : fd_(o.release()) {}
  Socket& operator=(Socket&& o) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  int fd() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release();
  void close();

 private:
  int fd_ = -1;
};

// "host:port", with brackets around IPv6 literals.
std::string endpoint(const std::string& host, uint16_t port);

// Listens on `host` (the rendezvous store's master address): on that address only, so that a
// store on 127.0.0.1 cannot be reached from the network. "0.0.0.0", "::", "*" and "" listen on
// every interface (IPv6 dual stack when available, else IPv4), and so does a host name other
// than "localhost" that resolves to loopback addresses only (Debian maps the machine's own name
// to 127.0.1.1, while the other hosts reach it by its network address). Port 0 picks a free one.
// Returns the socket and writes the bound port. Throws DistNetworkError (port in use, an address
// that is not this machine's, a name that does not resolve).
Socket listen_on(const std::string& host, uint16_t port, uint16_t* bound_port);

// Connects to host:port. Refused, unreachable and timed-out attempts are retried with backoff
// until `deadline` (the server may not be up yet); an unresolvable host fails at once. Throws
// DistNetworkError naming `what` (e.g. "the rendezvous store") and the endpoint.
Socket connect_with_retry(const std::string& host, uint16_t port, Clock::time_point deadline,
                          const std::string& what);

// Sends/receives exactly n bytes before `deadline`. False when the peer closed the connection
// (or, for send, reset it); throws DistNetworkError on a timeout or another socket error.
bool send_all(int fd, const void* data, size_t n, Clock::time_point deadline);
bool recv_all(int fd, void* data, size_t n, Clock::time_point deadline);

// The local IP address that traffic to `host` leaves from (a UDP "connect", no packet is sent):
// the address Gloo must listen on so that peers on other hosts can reach this rank.
std::string local_address_towards(const std::string& host);

// Whether `host` resolves to a loopback address (127.0.0.0/8, ::1).
bool is_loopback(const std::string& host);

}  // namespace ember::distributed::net
