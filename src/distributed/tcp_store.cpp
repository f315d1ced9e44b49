// TCPStore's client side: one connection per store object, one request at a time (a mutex), and
// errors that say which store, which keys and how long.
#include "ember/distributed/tcp_store.h"

#include <mutex>
#include <sstream>

#include "distributed/socket.h"
#include "distributed/store_protocol.h"
#include "distributed/tcp_store_server.h"

namespace ember::distributed {

using namespace store_protocol;
using net::Clock;

namespace {

std::string seconds(std::chrono::milliseconds d) {
  std::ostringstream os;
  os << static_cast<double>(d.count()) / 1000.0 << " s";
  return os.str();
}

std::string quoted_list(const std::vector<std::string>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", '" : "'") + keys[i] + "'";
  return out;
}

// A request carrying a user's key and value, refused here when the store would refuse it.
const std::string& checked(const std::string& message, const char* op, const std::string& key) {
  const size_t body = message.size() - 4;
  EMBER_CHECK(body <= kMaxMessageBytes, ValueError, "TCPStore::", op, "('", key,
              "'): the request would be ", body, " bytes, over the store's limit of ",
              kMaxMessageBytes, " bytes (64 MiB) per message");
  return message;
}

// Time a blocking request may take beyond its own timeout before the server is presumed gone.
constexpr auto kReplyGrace = std::chrono::seconds(10);

}  // namespace

class TCPStore::Client {
 public:
  Client(std::string host, uint16_t port, std::chrono::milliseconds timeout)
      : host_(std::move(host)), port_(port) {
    socket_ = net::connect_with_retry(host_, port_, Clock::now() + timeout,
                                      "the rendezvous store (TCPStore)");
  }

  // Sends one request and returns the reply body; the reply's status byte is checked here.
  std::string request(const std::string& message, std::chrono::milliseconds budget,
                      Status* status) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!socket_.valid()) throw lost();
    auto deadline = Clock::now() + budget;
    try {
      if (!net::send_all(socket_.fd(), message.data(), message.size(), deadline)) throw lost();
      uint32_t len = 0;
      if (!net::recv_all(socket_.fd(), &len, 4, deadline)) throw lost();
      if (len > kMaxMessageBytes) throw DistStoreError("TCPStore: malformed reply");
      std::string body(len, '\0');
      if (!net::recv_all(socket_.fd(), body.data(), len, deadline)) throw lost();
      Reader r(body.data(), body.size());
      *status = static_cast<Status>(r.u8());
      if (*status == Status::kError) throw DistStoreError(r.str());
      return body.substr(1);
    } catch (const DistNetworkError& e) {
      // A reply that is late or half-read leaves the stream out of step: never reuse it.
      socket_.close();
      throw DistStoreError(
          detail::str_cat("TCPStore at ", net::endpoint(host_, port_), ": ", e.what()));
    } catch (const DistStoreError&) {
      if (!socket_.valid()) throw;
      throw;
    }
  }

 private:
  DistStoreError lost() {
    socket_.close();
    return DistStoreError(detail::str_cat(
        "the rendezvous store at ", net::endpoint(host_, port_),
        " closed the connection: the master process (rank 0), which runs the store, has exited "
        "or died"));
  }

  std::string host_;
  uint16_t port_;
  std::mutex mutex_;
  net::Socket socket_;
};

TCPStore::TCPStore(std::string host, const TCPStoreOptions& options)
    : Store(options.timeout), host_(std::move(host)), port_(options.port) {
  EMBER_CHECK(!host_.empty(), ValueError, "TCPStore: the host name is empty");
  if (options.is_master) {
    EMBER_CHECK(options.max_connections >= 1, ValueError,
                "TCPStore: max_connections must be at least 1 (the master's own client), got ",
                options.max_connections);
    server_ = std::make_unique<Server>(host_, options.port, options.max_connections);
    server_->set_drain_timeout(
        std::min<std::chrono::milliseconds>(timeout_, std::chrono::seconds(30)));
    port_ = server_->port();
  }
  client_ = std::make_unique<Client>(host_, port_, timeout_);
  if (options.num_workers) {
    const int n = *options.num_workers;
    EMBER_CHECK(n >= 1, ValueError, "TCPStore: num_workers must be at least 1, got ", n);
    if (add("/ember/store/workers", 1) == n) set("/ember/store/all_workers", std::string("1"));
    if (options.is_master && options.wait_for_workers) {
      try {
        wait({"/ember/store/all_workers"});
      } catch (const DistStoreError&) {
        int64_t joined = add("/ember/store/workers", 0);
        throw DistStoreError(detail::str_cat("TCPStore: only ", joined, " of ", n,
                                             " workers connected to ", net::endpoint(host_, port_),
                                             " within ", seconds(timeout_)));
      }
    }
  }
}

TCPStore::~TCPStore() {
  client_.reset();
  server_.reset();
}

bool TCPStore::is_master() const {
  return server_ != nullptr;
}

void TCPStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  Status st;
  client_->request(
      checked(Writer().u8(uint8_t(Command::kSet)).str(key).blob(value).finish(), "set", key),
      timeout_, &st);
}

std::vector<uint8_t> TCPStore::get(const std::string& key) {
  Status st;
  std::string body =
      client_->request(Writer().u8(uint8_t(Command::kGet)).str(key).i64(timeout_.count()).finish(),
                       timeout_ + kReplyGrace, &st);
  if (st == Status::kTimeout) {
    throw DistStoreError(detail::str_cat("TCPStore at ", net::endpoint(host_, port_),
                                         ": timed out after ", seconds(timeout_),
                                         " waiting for key '", key, "'"));
  }
  return Reader(body.data(), body.size()).blob();
}

int64_t TCPStore::add(const std::string& key, int64_t amount) {
  Status st;
  std::string body = client_->request(
      Writer().u8(uint8_t(Command::kAdd)).str(key).i64(amount).finish(), timeout_, &st);
  return Reader(body.data(), body.size()).i64();
}

std::vector<uint8_t> TCPStore::compare_set(const std::string& key,
                                           const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) {
  Status st;
  std::string body = client_->request(
      checked(
          Writer().u8(uint8_t(Command::kCompareSet)).str(key).blob(expected).blob(desired).finish(),
          "compare_set", key),
      timeout_, &st);
  return Reader(body.data(), body.size()).blob();
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  Status st;
  std::string body =
      client_->request(Writer().u8(uint8_t(Command::kCheck)).strs(keys).finish(), timeout_, &st);
  return Reader(body.data(), body.size()).i64() != 0;
}

bool TCPStore::delete_key(const std::string& key) {
  Status st;
  std::string body =
      client_->request(Writer().u8(uint8_t(Command::kDelete)).str(key).finish(), timeout_, &st);
  return Reader(body.data(), body.size()).i64() != 0;
}

int64_t TCPStore::num_keys() {
  Status st;
  std::string body =
      client_->request(Writer().u8(uint8_t(Command::kNumKeys)).finish(), timeout_, &st);
  return Reader(body.data(), body.size()).i64();
}

void TCPStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  Status st;
  client_->request(Writer().u8(uint8_t(Command::kWait)).strs(keys).i64(timeout.count()).finish(),
                   timeout + kReplyGrace, &st);
  if (st == Status::kTimeout) {
    throw DistStoreError(detail::str_cat("TCPStore at ", net::endpoint(host_, port_),
                                         ": timed out after ", seconds(timeout),
                                         " waiting for key(s) ", quoted_list(keys)));
  }
}

void TCPStore::register_rank(int rank) {
  Status st;
  client_->request(Writer().u8(uint8_t(Command::kRegister)).i64(rank).finish(), timeout_, &st);
}

void TCPStore::unregister_rank() {
  Status st;
  client_->request(Writer().u8(uint8_t(Command::kUnregister)).finish(), timeout_, &st);
}

std::vector<int> TCPStore::departed_ranks() {
  Status st;
  std::string body =
      client_->request(Writer().u8(uint8_t(Command::kDeparted)).finish(), timeout_, &st);
  Reader r(body.data(), body.size());
  std::vector<int> ranks(r.u32());
  for (int& x : ranks) x = static_cast<int>(r.i64());
  return ranks;
}

}  // namespace ember::distributed
