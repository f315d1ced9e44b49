// TCP helpers of the rendezvous store: listening, connecting with retries, exact reads and writes
// bounded by deadlines (poll), and the local address towards a peer.
#include "distributed/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <thread>

#include "ember/distributed/errors.h"

namespace ember::distributed::net {
namespace {

std::string errno_text(int err) {
  return std::string(std::strerror(err));
}

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, 1 << 30));
}

// Waits until `fd` is ready for `events`; false on timeout.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, remaining_ms(deadline));
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) {
      throw DistNetworkError(detail::str_cat("poll() failed: ", errno_text(errno)));
    }
  }
}

struct AddrInfoList {
  addrinfo* head = nullptr;
  ~AddrInfoList() {
    if (head) freeaddrinfo(head);
  }
};

std::string seconds_text(Clock::duration d) {
  double s = std::chrono::duration<double>(d).count();
  std::ostringstream os;
  os << s << " s";
  return os.str();
}

// One non-blocking connect attempt to `ai`, bounded by `attempt_deadline`. Returns the connected
// socket or an invalid one with `err` set.
Socket try_connect(const addrinfo* ai, Clock::time_point attempt_deadline, int* err) {
  Socket s(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
  if (!s.valid()) {
    *err = errno;
    return Socket();
  }
  int flags = ::fcntl(s.fd(), F_GETFL, 0);
  ::fcntl(s.fd(), F_SETFL, flags | O_NONBLOCK);
  int r = ::connect(s.fd(), ai->ai_addr, ai->ai_addrlen);
  if (r != 0 && errno != EINPROGRESS) {
    *err = errno;
    return Socket();
  }
  if (r != 0) {
    if (!wait_for(s.fd(), POLLOUT, attempt_deadline)) {
      *err = ETIMEDOUT;
      return Socket();
    }
    int so_error = 0;
    socklen_t len = sizeof(so_error);
    ::getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &so_error, &len);
    if (so_error != 0) {
      *err = so_error;
      return Socket();
    }
  }
  ::fcntl(s.fd(), F_SETFL, flags);
  int one = 1;
  ::setsockopt(s.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return s;
}

}  // namespace

Socket& Socket::operator=(Socket&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.release();
  }
  return *this;
}

int Socket::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

void Socket::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string endpoint(const std::string& host, uint16_t port) {
  bool v6 = host.find(':') != std::string::npos;
  return detail::str_cat(v6 ? "[" : "", host, v6 ? "]" : "", ":", port);
}

namespace {

std::string listen_error(const std::string& host, uint16_t port, int err) {
  std::string where = host.empty() ? std::string("port ") + std::to_string(port)
                                   : "port " + std::to_string(port) + " of " + host;
  std::string hint;
  if (err == EADDRINUSE) hint = " (another process uses it: pick another MASTER_PORT)";
  if (err == EADDRNOTAVAIL) {
    hint = detail::str_cat(": ", host,
                           " is not an address of this machine. Rank 0 runs the rendezvous store "
                           "on MASTER_ADDR, so that must be one of its addresses (0.0.0.0 listens "
                           "on every interface)");
  }
  return detail::str_cat("cannot listen on ", where, ": ", errno_text(err), hint);
}

uint16_t port_of(int fd) {
  sockaddr_storage got{};
  socklen_t got_len = sizeof(got);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&got), &got_len);
  return ntohs(got.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&got)->sin6_port
                                         : reinterpret_cast<sockaddr_in*>(&got)->sin_port);
}

// A listening socket bound to `addr`; invalid with `err` set when that fails.
Socket listen_at(int family, const sockaddr* addr, socklen_t len, int* err) {
  Socket s(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s.valid()) {
    *err = errno;
    return Socket();
  }
  int one = 1, zero = 0;
  ::setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (family == AF_INET6) {
    // The IPv6 wildcard also takes IPv4 (dual stack); a specific IPv6 address is only itself.
    ::setsockopt(s.fd(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
  }
  if (::bind(s.fd(), addr, len) != 0 || ::listen(s.fd(), 1024) != 0) {
    *err = errno;
    return Socket();
  }
  return s;
}

Socket listen_on_all_interfaces(uint16_t port, uint16_t* bound_port) {
  int last_err = 0;
  for (int family : {AF_INET6, AF_INET}) {
    sockaddr_storage addr{};
    socklen_t len;
    if (family == AF_INET6) {
      auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
      a->sin6_family = AF_INET6;
      a->sin6_addr = in6addr_any;
      a->sin6_port = htons(port);
      len = sizeof(sockaddr_in6);
    } else {
      auto* a = reinterpret_cast<sockaddr_in*>(&addr);
      a->sin_family = AF_INET;
      a->sin_addr.s_addr = htonl(INADDR_ANY);
      a->sin_port = htons(port);
      len = sizeof(sockaddr_in);
    }
    Socket s = listen_at(family, reinterpret_cast<sockaddr*>(&addr), len, &last_err);
    if (s.valid()) {
      *bound_port = port_of(s.fd());
      return s;
    }
    if (last_err == EADDRINUSE) break;  // the other family would hit the same port
  }
  throw DistNetworkError(listen_error("", port, last_err));
}

bool is_loopback_address(const sockaddr* a) {
  if (a->sa_family == AF_INET) {
    return (ntohl(reinterpret_cast<const sockaddr_in*>(a)->sin_addr.s_addr) >> 24) == 127;
  }
  return a->sa_family == AF_INET6 &&
         IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr);
}

}  // namespace

Socket listen_on(const std::string& host, uint16_t port, uint16_t* bound_port) {
  if (host.empty() || host == "0.0.0.0" || host == "::" || host == "*") {
    return listen_on_all_interfaces(port, bound_port);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  AddrInfoList list;
  std::string port_text = std::to_string(port);
  int rc = ::getaddrinfo(host.c_str(), port_text.c_str(), &hints, &list.head);
  if (rc != 0) {
    throw DistNetworkError(detail::str_cat("cannot resolve the address of the rendezvous store '",
                                           host, "' to listen on: ", gai_strerror(rc)));
  }
  bool all_loopback = true;
  for (const addrinfo* ai = list.head; ai; ai = ai->ai_next) {
    all_loopback = all_loopback && is_loopback_address(ai->ai_addr);
  }
  addrinfo numeric_hints{};
  numeric_hints.ai_flags = AI_NUMERICHOST;
  AddrInfoList numeric;
  bool is_name = ::getaddrinfo(host.c_str(), nullptr, &numeric_hints, &numeric.head) != 0;
  if (all_loopback && is_name && host != "localhost") {
    return listen_on_all_interfaces(port, bound_port);
  }
  int last_err = 0;
  for (const addrinfo* ai = list.head; ai; ai = ai->ai_next) {
    Socket s = listen_at(ai->ai_family, ai->ai_addr, ai->ai_addrlen, &last_err);
    if (s.valid()) {
      *bound_port = port_of(s.fd());
      return s;
    }
    if (last_err == EADDRINUSE) break;
  }
  throw DistNetworkError(listen_error(host, port, last_err));
}

Socket connect_with_retry(const std::string& host, uint16_t port, Clock::time_point deadline,
                          const std::string& what) {
  const auto start = Clock::now();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  AddrInfoList list;
  std::string port_text = std::to_string(port);
  int rc = ::getaddrinfo(host.c_str(), port_text.c_str(), &hints, &list.head);
  if (rc != 0) {
    throw DistNetworkError(detail::str_cat("cannot resolve the address of ", what, " '", host,
                                           "': ", gai_strerror(rc)));
  }
  auto backoff = std::chrono::milliseconds(10);
  int last_err = 0;
  for (;;) {
    for (const addrinfo* ai = list.head; ai; ai = ai->ai_next) {
      // One attempt may take at most a few seconds, so that a silently dropped SYN is retried.
      auto attempt_deadline = std::min(deadline, Clock::now() + std::chrono::seconds(5));
      Socket s = try_connect(ai, attempt_deadline, &last_err);
      if (s.valid()) return s;
    }
    if (Clock::now() + backoff >= deadline) break;
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
  throw DistNetworkError(detail::str_cat(
      "could not connect to ", what, " at ", endpoint(host, port), " within ",
      seconds_text(Clock::now() - start), ": ", errno_text(last_err),
      ". Is the master process (rank 0) running, and are MASTER_ADDR and MASTER_PORT right?"));
}

bool send_all(int fd, const void* data, size_t n, Clock::time_point deadline) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w > 0) {
      p += w;
      n -= static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_for(fd, POLLOUT, deadline)) {
        throw DistNetworkError("timed out sending to the rendezvous store");
      }
      continue;
    }
    if (w < 0 && (errno == EPIPE || errno == ECONNRESET)) return false;
    throw DistNetworkError(detail::str_cat("send() failed: ", errno_text(errno)));
  }
  return true;
}

bool recv_all(int fd, void* data, size_t n, Clock::time_point deadline) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    if (!wait_for(fd, POLLIN, deadline)) {
      throw DistNetworkError("timed out waiting for a reply from the rendezvous store");
    }
    ssize_t r = ::recv(fd, p, n, MSG_DONTWAIT);
    if (r > 0) {
      p += r;
      n -= static_cast<size_t>(r);
      continue;
    }
    if (r == 0) return false;
    if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
    if (errno == ECONNRESET) return false;
    throw DistNetworkError(detail::str_cat("recv() failed: ", errno_text(errno)));
  }
  return true;
}

std::string local_address_towards(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  AddrInfoList list;
  int rc = ::getaddrinfo(host.c_str(), "9", &hints, &list.head);
  if (rc != 0) {
    throw DistNetworkError(
        detail::str_cat("cannot resolve the address '", host, "': ", gai_strerror(rc)));
  }
  for (const addrinfo* ai = list.head; ai; ai = ai->ai_next) {
    Socket s(::socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!s.valid() || ::connect(s.fd(), ai->ai_addr, ai->ai_addrlen) != 0) continue;
    sockaddr_storage local{};
    socklen_t len = sizeof(local);
    if (::getsockname(s.fd(), reinterpret_cast<sockaddr*>(&local), &len) != 0) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const void* addr =
        local.ss_family == AF_INET6
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr);
    if (::inet_ntop(local.ss_family, addr, text, sizeof(text))) return text;
  }
  throw DistNetworkError(detail::str_cat("no network route to '", host, "'"));
}

bool is_loopback(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  AddrInfoList list;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &list.head) != 0) return false;
  for (const addrinfo* ai = list.head; ai; ai = ai->ai_next) {
    if (ai->ai_family == AF_INET) {
      auto a = ntohl(reinterpret_cast<sockaddr_in*>(ai->ai_addr)->sin_addr.s_addr);
      if ((a >> 24) != 127) return false;
    } else if (ai->ai_family == AF_INET6) {
      if (!IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<sockaddr_in6*>(ai->ai_addr)->sin6_addr)) {
        return false;
      }
    }
  }
  return list.head != nullptr;
}

}  // namespace ember::distributed::net
