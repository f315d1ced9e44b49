// TCPStore's server loop: accept, read framed requests, answer or park them, and notice ranks
// whose connection closes without saying goodbye.
#include "distributed/tcp_store_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "distributed/store_protocol.h"

namespace ember::distributed {

using namespace store_protocol;
using net::Clock;

namespace {

// How long a refused client has to read why, and how many may wait at once.
constexpr auto kRefusedGrace = std::chrono::seconds(2);
constexpr int kMaxRefused = 64;

}  // namespace

TCPStore::Server::Server(const std::string& host, uint16_t port, int max_connections)
    : max_connections_(max_connections) {
  listener_ = net::listen_on(host, port, &port_);
  // accept_connections() takes every pending connection and stops when none is left.
  ::fcntl(listener_.fd(), F_SETFL, ::fcntl(listener_.fd(), F_GETFL, 0) | O_NONBLOCK);
  if (::pipe2(wake_fd_, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw DistStoreError(detail::str_cat("TCPStore: pipe() failed: ", std::strerror(errno)));
  }
  thread_ = std::thread([this] { run(); });
}

TCPStore::Server::~Server() {
  stopping_ = true;
  char b = 1;
  [[maybe_unused]] auto w = ::write(wake_fd_[1], &b, 1);
  if (thread_.joinable()) thread_.join();
  ::close(wake_fd_[0]);
  ::close(wake_fd_[1]);
}

bool TCPStore::Server::has_all(const std::vector<std::string>& keys) const {
  for (const auto& k : keys) {
    if (!data_.count(k)) return false;
  }
  return true;
}

void TCPStore::Server::run() {
  Clock::time_point stop_deadline{};
  bool stop_seen = false;
  for (;;) {
    auto now = Clock::now();
    if (stopping_) {
      if (!stop_seen) {
        stop_seen = true;
        stop_deadline = now + drain_timeout_;
      }
      bool registered_left = std::any_of(connections_.begin(), connections_.end(),
                                         [](const auto& kv) { return kv.second.rank >= 0; });
      if (!registered_left || now >= stop_deadline) return;
    }
    std::vector<pollfd> fds;
    std::vector<int> ids;
    fds.push_back({wake_fd_[0], POLLIN, 0});
    const bool accepting = now >= accept_paused_until_;
    fds.push_back({listener_.fd(), static_cast<short>(accepting ? POLLIN : 0), 0});
    auto next = Clock::time_point::max();
    if (!accepting) next = accept_paused_until_;
    for (auto& [id, c] : connections_) {
      if (c.refused) next = std::min(next, c.refused_until);
      // A client that does not read its replies is not read from either until they have left.
      short ev = c.out.size() < kMaxMessageBytes ? POLLIN : 0;
      if (!c.out.empty()) ev |= POLLOUT;
      fds.push_back({c.socket.fd(), ev, 0});
      ids.push_back(id);
    }
    // Sleep until the next parked request expires (or 100 ms while draining), a refused client's
    // grace ends or accepting resumes.
    int timeout_ms = -1;
    for (const auto& w : waiters_) next = std::min(next, w.deadline);
    if (stop_seen) next = std::min(next, now + std::chrono::milliseconds(100));
    if (next != Clock::time_point::max()) {
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count();
      timeout_ms = static_cast<int>(std::clamp<int64_t>(ms + 1, 0, 1 << 30));
    }
    int r = ::poll(fds.data(), fds.size(), timeout_ms);
    if (r < 0 && errno != EINTR) return;
    if (fds[0].revents & POLLIN) {
      char buf[64];
      while (::read(wake_fd_[0], buf, sizeof(buf)) > 0) {
      }
    }
    if (fds[1].revents & POLLIN) accept_connections();
    for (size_t i = 0; i < ids.size(); ++i) {
      auto it = connections_.find(ids[i]);
      if (it == connections_.end()) continue;
      Connection& c = it->second;
      short re = fds[i + 2].revents;
      bool alive = true;
      if (c.refused) {
        if ((re & (POLLIN | POLLHUP | POLLERR)) && !drain(c)) alive = false;
        if (Clock::now() >= c.refused_until) alive = false;
        if (!alive) drop(ids[i]);
        continue;
      }
      if (re & (POLLIN | POLLHUP | POLLERR)) alive = read_from(ids[i], c);
      if (alive && (re & POLLOUT)) write_pending(c);
      if (!alive || (c.closing && c.out.empty())) drop(ids[i]);
    }
    expire_waiters(Clock::now());
  }
}

void TCPStore::Server::accept_connections() {
  for (;;) {
    int fd = ::accept4(listener_.fd(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        accept_paused_until_ = Clock::now() + std::chrono::milliseconds(100);
      }
      return;
    }
    Connection c;
    c.socket = net::Socket(fd);
    const int served = static_cast<int>(connections_.size()) - refused_count_;
    if (served >= max_connections_) {
      if (refused_count_ >= kMaxRefused) continue;  // closed at once: too many to explain to
      refuse_connection(c);
      ++refused_count_;
    }
    connections_.emplace(next_connection_++, std::move(c));
  }
}

void TCPStore::Server::refuse_connection(Connection& c) {
  c.refused = true;
  c.refused_until = Clock::now() + kRefusedGrace;
  Writer reply;
  reply.u8(uint8_t(Status::kError))
      .str(detail::str_cat("the rendezvous store refuses this connection: it serves ",
                           max_connections_,
                           " connections already, its limit (TCPStoreOptions::max_connections; "
                           "init_process_group allows world_size + 64)"));
  c.out = reply.finish();
  write_pending(c);  // a few dozen bytes: the socket buffer takes them
  // The client reads the error as the reply to its first request, then the end of the stream.
  // Its request, still to come, is drained rather than left unread (which would reset the
  // connection and could discard the error before the client read it).
  ::shutdown(c.socket.fd(), SHUT_WR);
  c.out.clear();
}

bool TCPStore::Server::drain(Connection& c) {
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(c.socket.fd(), buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) continue;
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

bool TCPStore::Server::read_from(int id, Connection& c) {
  char buf[65536];
  // Messages are taken as they arrive (a length over the limit is refused before its body is
  // read), and one wake-up reads at most a few MiB, so a client that keeps sending cannot make
  // the server buffer without bound or starve the others.
  size_t budget = size_t(4) << 20;
  while (budget > 0) {
    ssize_t n = ::recv(c.socket.fd(), buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) {
      c.in.append(buf, static_cast<size_t>(n));
      budget -= std::min(budget, static_cast<size_t>(n));
      if (!take_messages(id, c)) return false;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) break;
    return false;
  }
  write_pending(c);
  return true;
}

bool TCPStore::Server::take_messages(int id, Connection& c) {
  size_t pos = 0;
  bool keep = true;
  while (c.in.size() - pos >= 4) {
    uint32_t len;
    std::memcpy(&len, c.in.data() + pos, 4);
    if (len > kMaxMessageBytes) {
      refuse(c, detail::str_cat("TCPStore: a message of ", len, " bytes exceeds the limit of ",
                                kMaxMessageBytes, " bytes (64 MiB); closing the connection"));
      keep = false;
      break;
    }
    if (c.in.size() - pos - 4 < len) break;
    try {
      handle(id, c, c.in.data() + pos + 4, len);
    } catch (const DistStoreError& e) {
      // Garbage from a stray client.
      refuse(c, detail::str_cat("TCPStore: ", e.what(), "; closing the connection"));
      keep = false;
      break;
    }
    pos += 4 + len;
  }
  c.in.erase(0, pos);
  return keep;
}

void TCPStore::Server::refuse(Connection& c, const std::string& message) {
  Writer reply;
  reply.u8(uint8_t(Status::kError)).str(message);
  c.out += reply.finish();
  write_pending(c);
  c.in.clear();
}

void TCPStore::Server::write_pending(Connection& c) {
  while (!c.out.empty()) {
    ssize_t n = ::send(c.socket.fd(), c.out.data(), c.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c.out.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return;  // full (POLLOUT will resume) or broken (the read side will notice)
  }
}

void TCPStore::Server::handle(int id, Connection& c, const char* body, size_t n) {
  Reader in(body, n);
  auto command = static_cast<Command>(in.u8());
  Writer reply;
  switch (command) {
    case Command::kSet: {
      std::string key = in.str();
      data_[key] = in.blob();
      reply.u8(uint8_t(Status::kOk));
      c.out += reply.finish();
      wake_waiters();
      return;
    }
    case Command::kGet:
    case Command::kWait: {
      std::vector<std::string> keys;
      if (command == Command::kGet) {
        keys.push_back(in.str());
      } else {
        keys = in.strs();
      }
      int64_t timeout_ms = in.i64();
      if (has_all(keys)) {
        reply.u8(uint8_t(Status::kOk));
        if (command == Command::kGet) reply.blob(data_[keys[0]]);
        c.out += reply.finish();
      } else {
        waiters_.push_back({id, std::move(keys),
                            Clock::now() + std::chrono::milliseconds(timeout_ms),
                            command == Command::kGet});
      }
      return;
    }
    case Command::kCheck: {
      reply.u8(uint8_t(Status::kOk)).i64(has_all(in.strs()) ? 1 : 0);
      break;
    }
    case Command::kAdd: {
      std::string key = in.str();
      int64_t amount = in.i64();
      int64_t value = 0;
      auto it = data_.find(key);
      if (it != data_.end()) {
        std::string text(it->second.begin(), it->second.end());
        try {
          value = std::stoll(text);
        } catch (const std::exception&) {
          reply.u8(uint8_t(Status::kError))
              .str(detail::str_cat("add(): key '", key, "' holds '", text,
                                   "', which is not an integer"));
          break;
        }
      }
      value += amount;
      std::string text = std::to_string(value);
      data_[key] = std::vector<uint8_t>(text.begin(), text.end());
      reply.u8(uint8_t(Status::kOk)).i64(value);
      c.out += reply.finish();
      wake_waiters();
      return;
    }
    case Command::kCompareSet: {
      std::string key = in.str();
      auto expected = in.blob();
      auto desired = in.blob();
      auto it = data_.find(key);
      std::vector<uint8_t> now;
      if (it == data_.end()) {
        if (expected.empty()) data_[key] = desired;
        now = expected.empty() ? desired : expected;
      } else if (it->second == expected) {
        it->second = desired;
        now = desired;
      } else {
        now = it->second;
      }
      reply.u8(uint8_t(Status::kOk)).blob(now);
      c.out += reply.finish();
      wake_waiters();
      return;
    }
    case Command::kDelete: {
      reply.u8(uint8_t(Status::kOk)).i64(data_.erase(in.str()) ? 1 : 0);
      break;
    }
    case Command::kNumKeys: {
      reply.u8(uint8_t(Status::kOk)).i64(static_cast<int64_t>(data_.size()));
      break;
    }
    case Command::kRegister: {
      c.rank = static_cast<int>(in.i64());
      reply.u8(uint8_t(Status::kOk));
      break;
    }
    case Command::kUnregister: {
      c.rank = -1;
      reply.u8(uint8_t(Status::kOk));
      break;
    }
    case Command::kDeparted: {
      reply.u8(uint8_t(Status::kOk)).u32(static_cast<uint32_t>(departed_.size()));
      for (int r : departed_) reply.i64(r);
      break;
    }
    default:
      throw DistStoreError("unknown TCPStore command");
  }
  c.out += reply.finish();
}

void TCPStore::Server::wake_waiters() {
  for (size_t i = 0; i < waiters_.size();) {
    Waiter& w = waiters_[i];
    if (!has_all(w.keys)) {
      ++i;
      continue;
    }
    auto it = connections_.find(w.connection);
    if (it != connections_.end()) {
      Writer reply;
      reply.u8(uint8_t(Status::kOk));
      if (w.reply_value) reply.blob(data_[w.keys[0]]);
      it->second.out += reply.finish();
      write_pending(it->second);
    }
    waiters_.erase(waiters_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

void TCPStore::Server::expire_waiters(Clock::time_point now) {
  for (size_t i = 0; i < waiters_.size();) {
    if (waiters_[i].deadline > now) {
      ++i;
      continue;
    }
    auto it = connections_.find(waiters_[i].connection);
    if (it != connections_.end()) {
      Writer reply;
      reply.u8(uint8_t(Status::kTimeout));
      it->second.out += reply.finish();
      write_pending(it->second);
    }
    waiters_.erase(waiters_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

void TCPStore::Server::drop(int id) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  if (it->second.rank >= 0) departed_.push_back(it->second.rank);
  if (it->second.refused) --refused_count_;
  connections_.erase(it);
  waiters_.erase(std::remove_if(waiters_.begin(), waiters_.end(),
                                [id](const Waiter& w) { return w.connection == id; }),
                 waiters_.end());
}

}  // namespace ember::distributed
