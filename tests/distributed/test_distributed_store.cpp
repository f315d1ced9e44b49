// TCPStore and PrefixStore in one process: the master's server and several clients on loopback,
// blocking gets, timeouts that name the keys, connection retries, liveness, worker counting.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>
#include <thread>

#include "ember/distributed/prefix_store.h"
#include "ember/distributed/tcp_store.h"
#include "support/multi_process.h"
#include "support/test_util.h"

namespace dist = ember::distributed;
using ember::testing::contains;
using ember::testing::error_of;
using namespace std::chrono_literals;

namespace {

dist::TCPStoreOptions master(std::chrono::milliseconds timeout = 10s) {
  dist::TCPStoreOptions o;
  o.port = 0;
  o.is_master = true;
  o.timeout = timeout;
  return o;
}

dist::TCPStoreOptions client(uint16_t port, std::chrono::milliseconds timeout = 10s) {
  dist::TCPStoreOptions o;
  o.port = port;
  o.timeout = timeout;
  return o;
}

std::vector<uint8_t> bytes(const std::string& s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

// An IPv4 address of this machine other than loopback ("" when it has none).
std::string non_loopback_ipv4() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return {};
  std::string found;
  for (ifaddrs* i = list; i && found.empty(); i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || (i->ifa_flags & IFF_LOOPBACK) ||
        !(i->ifa_flags & IFF_UP)) {
      continue;
    }
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, text,
                sizeof(text));
    found = text;
  }
  ::freeifaddrs(list);
  return found;
}

// A plain TCP connection to an IPv4 address (-1 when refused), for talking to the store the way a
// stray client would.
bool connect_to(int fd, const std::string& ipv4, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, ipv4.c_str(), &a.sin_addr);
  return ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
}

int raw_connect(const std::string& ipv4, uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || !connect_to(fd, ipv4, port)) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

TEST(TCPStore, SetGetAddCompareSetCheckDelete) {
  dist::TCPStore server("127.0.0.1", master());
  ASSERT_GT(server.port(), 0);
  EXPECT_TRUE(server.is_master());
  dist::TCPStore other("127.0.0.1", client(server.port()));
  EXPECT_FALSE(other.is_master());

  server.set("a", std::string("hello"));
  EXPECT_EQ(other.get_string("a"), "hello");
  std::vector<uint8_t> binary = {0, 255, 10, 0};
  other.set("bin", binary);
  EXPECT_EQ(server.get("bin"), binary);

  EXPECT_EQ(server.add("n", 5), 5);
  EXPECT_EQ(other.add("n", -2), 3);
  EXPECT_EQ(other.get_string("n"), "3");

  // compare_set: absent + empty expected sets; a wrong expected value leaves it.
  EXPECT_EQ(server.compare_set("c", {}, bytes("x")), bytes("x"));
  EXPECT_EQ(other.compare_set("c", bytes("nope"), bytes("y")), bytes("x"));
  EXPECT_EQ(other.compare_set("c", bytes("x"), bytes("y")), bytes("y"));
  EXPECT_EQ(server.compare_set("absent", bytes("e"), bytes("d")), bytes("e"));
  EXPECT_FALSE(server.check({"absent"}));

  EXPECT_TRUE(other.check({"a", "n"}));
  EXPECT_FALSE(other.check({"a", "missing"}));
  EXPECT_EQ(server.num_keys(), 4);
  EXPECT_TRUE(other.delete_key("a"));
  EXPECT_FALSE(other.delete_key("a"));
  EXPECT_FALSE(server.check({"a"}));
  EXPECT_TRUE(contains(error_of<dist::DistStoreError>([&] { server.add("c", 1); }),
                       "key 'c' holds 'y', which is not an integer"));
  // The connection is still in step after the refusal.
  EXPECT_EQ(server.add("n", 1), 4);
}

TEST(TCPStore, GetBlocksUntilAnotherClientSets) {
  dist::TCPStore server("127.0.0.1", master());
  std::thread setter([port = server.port()] {
    dist::TCPStore c("127.0.0.1", client(port));
    std::this_thread::sleep_for(200ms);
    c.set("late", std::string("value"));
  });
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(server.get_string("late"), "value");
  EXPECT_GE(std::chrono::steady_clock::now() - start, 150ms);
  server.wait({"late"});
  setter.join();
}

TEST(TCPStore, TimeoutsNameTheKeysAndKeepTheConnectionUsable) {
  dist::TCPStore server("127.0.0.1", master(300ms));
  auto start = std::chrono::steady_clock::now();
  std::string msg = error_of<dist::DistStoreError>([&] { server.get("never"); });
  EXPECT_TRUE(contains(msg, "timed out after 0.3 s waiting for key 'never'")) << msg;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  msg = error_of<dist::DistStoreError>([&] { server.wait({"x", "y"}, 100ms); });
  EXPECT_TRUE(contains(msg, "waiting for key(s) 'x', 'y'")) << msg;
  server.set("x", std::string("1"));
  EXPECT_EQ(server.get_string("x"), "1");
}

TEST(TCPStore, ClientsRetryUntilTheMasterIsUp) {
  const int port = ember::testing::free_port();
  std::unique_ptr<dist::TCPStore> late_master;
  std::thread starter([&] {
    std::this_thread::sleep_for(500ms);
    auto o = master();
    o.port = static_cast<uint16_t>(port);
    late_master = std::make_unique<dist::TCPStore>("127.0.0.1", o);
  });
  dist::TCPStore early("127.0.0.1", client(static_cast<uint16_t>(port)));
  early.set("k", std::string("v"));
  starter.join();
  EXPECT_EQ(late_master->get_string("k"), "v");
}

TEST(TCPStore, NobodyListeningFailsAtTheTimeoutNamingTheEndpoint) {
  const int port = ember::testing::free_port();
  auto start = std::chrono::steady_clock::now();
  std::string msg = error_of<dist::DistNetworkError>(
      [&] { dist::TCPStore("127.0.0.1", client(static_cast<uint16_t>(port), 400ms)); });
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(contains(msg, "could not connect to the rendezvous store (TCPStore) at 127.0.0.1:" +
                                std::to_string(port)))
      << msg;
  EXPECT_TRUE(contains(msg, "Connection refused")) << msg;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 5s);
}

TEST(TCPStore, UnresolvableHostFailsAtOnce) {
  auto start = std::chrono::steady_clock::now();
  std::string msg = error_of<dist::DistNetworkError>(
      [&] { dist::TCPStore("no-such-host.invalid", client(29500, 30s)); });
  EXPECT_TRUE(contains(msg,
                       "cannot resolve the address of the rendezvous store (TCPStore) "
                       "'no-such-host.invalid'"))
      << msg;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

TEST(TCPStore, PortInUseIsNamed) {
  dist::TCPStore first("127.0.0.1", master());
  auto o = master();
  o.port = first.port();
  std::string msg = error_of<dist::DistNetworkError>([&] { dist::TCPStore("127.0.0.1", o); });
  EXPECT_TRUE(contains(msg, "cannot listen on port " + std::to_string(first.port()))) << msg;
  EXPECT_TRUE(contains(msg, "pick another MASTER_PORT")) << msg;
}

// Reads one framed reply of the store on `fd` (the error text of a kError reply), then whether the
// store closed the connection after it; "<no reply>" when nothing came within a few seconds.
struct RawReply {
  std::string error = "<no reply>";
  bool closed = false;
};
RawReply read_error_reply(int fd) {
  RawReply out;
  std::string got;
  auto deadline = std::chrono::steady_clock::now() + 5s;
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) {
      out.closed = true;
      break;
    }
    got.append(buf, static_cast<size_t>(n));
  }
  // [u32 length][u8 status = 2 (error)][u32 text length][text]
  if (got.size() >= 9 && got[4] == 2) {
    uint32_t n;
    std::memcpy(&n, got.data() + 5, 4);
    out.error = got.substr(9, n);
  }
  return out;
}

TEST(TCPStore, OversizedMessagesAreRefusedAndTheConnectionClosed) {
  dist::TCPStore server("127.0.0.1", master());
  // A client announcing a 512 MiB message (the server used to wait for, and buffer, up to 1 GiB
  // per connection): a clear error, then the connection closed.
  int fd = raw_connect("127.0.0.1", server.port());
  ASSERT_GE(fd, 0);
  const uint32_t announced = 512u << 20;
  char header[5];
  std::memcpy(header, &announced, 4);
  header[4] = 1;  // set
  ASSERT_EQ(::send(fd, header, sizeof(header), MSG_NOSIGNAL), 5);
  RawReply reply = read_error_reply(fd);
  ::close(fd);
  EXPECT_TRUE(contains(reply.error,
                       "a message of 536870912 bytes exceeds the limit of 67108864 "
                       "bytes (64 MiB)"))
      << reply.error;
  EXPECT_TRUE(reply.closed);
  // An HTTP request to the store's port reads as a 542 MB message ("GET " as a length).
  fd = raw_connect("127.0.0.1", server.port());
  ASSERT_GE(fd, 0);
  const std::string http = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
  ASSERT_EQ(::send(fd, http.data(), http.size(), MSG_NOSIGNAL), static_cast<ssize_t>(http.size()));
  reply = read_error_reply(fd);
  ::close(fd);
  EXPECT_TRUE(contains(reply.error, "exceeds the limit")) << reply.error;
  EXPECT_TRUE(reply.closed);
  // The store serves the others as before.
  dist::TCPStore other("127.0.0.1", client(server.port()));
  other.set("k", std::string("v"));
  EXPECT_EQ(server.get_string("k"), "v");
  // A client refuses to send a value beyond the limit, naming the key; its connection stays
  // usable.
  std::vector<uint8_t> big((size_t(64) << 20) + 1);
  std::string msg = error_of<ember::ValueError>([&] { other.set("big", big); });
  EXPECT_TRUE(contains(msg, "'big'") && contains(msg, "64 MiB")) << msg;
  msg = error_of<ember::ValueError>([&] { other.compare_set("big", {}, big); });
  EXPECT_TRUE(contains(msg, "'big'") && contains(msg, "64 MiB")) << msg;
  EXPECT_FALSE(server.check({"big"}));
  std::vector<uint8_t> fits((size_t(64) << 20) - 64);
  other.set("fits", fits);
  EXPECT_EQ(server.get("fits").size(), fits.size());
}

TEST(TCPStore, ConnectionsBeyondTheLimitAreRefusedByName) {
  auto o = master();
  o.max_connections = 3;  // the master's own client and two more
  dist::TCPStore server("127.0.0.1", o);
  auto a = std::make_unique<dist::TCPStore>("127.0.0.1", client(server.port()));
  dist::TCPStore b("127.0.0.1", client(server.port()));
  a->set("a", std::string("1"));
  b.set("b", std::string("2"));
  std::string msg = error_of<dist::DistStoreError>([&] {
    dist::TCPStore c("127.0.0.1", client(server.port()));
    c.set("c", std::string("3"));
  });
  EXPECT_TRUE(contains(msg, "refuses this connection: it serves 3 connections already")) << msg;
  EXPECT_TRUE(contains(msg, "max_connections")) << msg;
  EXPECT_FALSE(server.check({"c"}));
  EXPECT_EQ(b.get_string("a"), "1");  // the others go on
  // A connection that closes frees its place.
  a.reset();
  bool joined = false;
  for (int i = 0; i < 100 && !joined; ++i) {
    try {
      dist::TCPStore c("127.0.0.1", client(server.port()));
      c.set("c", std::string("3"));
      joined = true;
    } catch (const dist::DistStoreError&) {
      std::this_thread::sleep_for(20ms);
    }
  }
  EXPECT_TRUE(joined);
  EXPECT_EQ(server.get_string("c"), "3");
  o.max_connections = 0;
  EXPECT_TRUE(contains(error_of<ember::ValueError>([&] { dist::TCPStore("127.0.0.1", o); }),
                       "max_connections must be at least 1"));
}

TEST(TCPStore, RunningOutOfFileDescriptorsDoesNotSpin) {
  // When accept() fails for want of file descriptors, the pending connection keeps the listener
  // readable: the server must pause accepting rather than spin on poll().
  dist::TCPStore server("127.0.0.1", master());
  // The client's socket exists before the limit drops to the lowest free descriptor, so no thread
  // (the server's included) can take a new one in between: only connect() is left, which needs
  // none on this side, while the server's accept() needs one and fails with EMFILE.
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  int probe = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);  // the lowest free descriptor
  ASSERT_GE(probe, 0);
  ::close(probe);
  rlimit low = saved;
  low.rlim_cur = static_cast<rlim_t>(probe);  // no new descriptor anywhere in the process
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  const bool connected = connect_to(fd, "127.0.0.1", server.port());
  const int connect_errno = errno;
  timespec t0{}, t1{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  std::this_thread::sleep_for(500ms);
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &saved), 0);
  ASSERT_TRUE(connected) << std::strerror(connect_errno);
  double cpu = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  EXPECT_LT(cpu, 0.05) << "the server spun on poll() for " << cpu << " s of CPU in 0.5 s";
  // With descriptors back, the connection is served.
  const std::string ping = [] {
    std::string m(4, '\0');
    m += char(8);  // num_keys
    uint32_t n = 1;
    std::memcpy(m.data(), &n, 4);
    return m;
  }();
  ASSERT_EQ(::send(fd, ping.data(), ping.size(), MSG_NOSIGNAL), 5);
  pollfd p{fd, POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 5000), 1) << "no reply once descriptors were available";
  ::close(fd);
}

TEST(TCPStore, MasterListensOnlyOnTheMasterAddress) {
  const std::string lan = non_loopback_ipv4();
  if (lan.empty()) GTEST_SKIP() << "this machine has no IPv4 address besides loopback";
  // MASTER_ADDR=127.0.0.1: reachable on loopback only, not from the network.
  dist::TCPStore local("127.0.0.1", master());
  dist::TCPStore client_of_local("127.0.0.1", client(local.port()));
  client_of_local.set("k", std::string("v"));
  int fd = raw_connect(lan, local.port());
  EXPECT_EQ(fd, -1) << "the store on 127.0.0.1 accepted a connection on " << lan;
  if (fd >= 0) ::close(fd);
  // MASTER_ADDR=<that address>: reachable there, not on loopback.
  dist::TCPStore on_lan(lan, master());
  dist::TCPStore client_of_lan(lan, client(on_lan.port()));
  client_of_lan.set("k2", std::string("v2"));
  EXPECT_EQ(on_lan.get_string("k2"), "v2");
  fd = raw_connect("127.0.0.1", on_lan.port());
  EXPECT_EQ(fd, -1) << "the store on " << lan << " accepted a connection on 127.0.0.1";
  if (fd >= 0) ::close(fd);
  // 0.0.0.0: every interface, as asked.
  dist::TCPStore everywhere("0.0.0.0", master());
  for (const std::string& addr : {std::string("127.0.0.1"), lan}) {
    fd = raw_connect(addr, everywhere.port());
    EXPECT_GE(fd, 0) << "the store on 0.0.0.0 refused a connection on " << addr;
    if (fd >= 0) ::close(fd);
  }
}

TEST(TCPStore, MasterAddressThatIsNotLocalIsNamed) {
  // 192.0.2.0/24 (TEST-NET-1) is reserved for documentation; 192.0.2.123 is no address here.
  auto o = master(1s);
  std::string msg = error_of<dist::DistNetworkError>([&] { dist::TCPStore("192.0.2.123", o); });
  if (contains(msg, "<no exception>")) GTEST_SKIP() << "192.0.2.123 is an address of this machine";
  EXPECT_TRUE(contains(msg, "192.0.2.123 is not an address of this machine")) << msg;
  EXPECT_TRUE(contains(msg, "0.0.0.0")) << msg;
}

TEST(TCPStore, RanksThatCloseWithoutGoodbyeAreDeparted) {
  dist::TCPStore server("127.0.0.1", master());
  server.register_rank(0);
  {
    dist::TCPStore leaves_cleanly("127.0.0.1", client(server.port()));
    leaves_cleanly.register_rank(1);
    leaves_cleanly.unregister_rank();
  }
  {
    dist::TCPStore vanishes("127.0.0.1", client(server.port()));
    vanishes.register_rank(2);
  }  // closed without unregister_rank: what a killed process looks like to the server
  std::vector<int> gone;
  for (int i = 0; i < 100 && gone.empty(); ++i) {
    gone = server.departed_ranks();
    if (gone.empty()) std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(gone, std::vector<int>{2});
  server.unregister_rank();
}

TEST(TCPStore, MasterWaitsForItsWorkers) {
  const int port = ember::testing::free_port();
  std::vector<std::thread> workers;
  for (int i = 0; i < 2; ++i) {
    workers.emplace_back([port] {
      auto o = client(static_cast<uint16_t>(port));
      o.num_workers = 3;
      dist::TCPStore w("127.0.0.1", o);
      w.wait({"done"});
    });
  }
  auto o = master();
  o.port = static_cast<uint16_t>(port);
  o.num_workers = 3;
  dist::TCPStore m("127.0.0.1", o);  // returns once all three have connected
  EXPECT_EQ(m.add("/ember/store/workers", 0), 3);
  m.set("done", std::string("1"));
  for (auto& t : workers) t.join();

  auto lonely = master(300ms);
  lonely.num_workers = 3;
  std::string msg = error_of<dist::DistStoreError>([&] { dist::TCPStore("127.0.0.1", lonely); });
  EXPECT_TRUE(contains(msg, "only 1 of 3 workers connected")) << msg;
}

TEST(PrefixStore, KeysLiveUnderTheirPrefix) {
  auto base = std::make_shared<dist::TCPStore>("127.0.0.1", master());
  dist::PrefixStore a("group_a", base), b("group_b", base);
  a.set("k", std::string("from a"));
  b.set("k", std::string("from b"));
  EXPECT_EQ(a.get_string("k"), "from a");
  EXPECT_EQ(b.get_string("k"), "from b");
  EXPECT_EQ(base->get_string("group_a/k"), "from a");
  EXPECT_EQ(a.add("n", 2), 2);
  EXPECT_TRUE(a.check({"k", "n"}));
  EXPECT_FALSE(b.check({"n"}));
  EXPECT_TRUE(a.delete_key("n"));
  EXPECT_EQ(a.underlying_store(), base);
}

}  // namespace
