// The default process group: init_process_group builds the rendezvous (rank 0's TCPStore), checks
// membership, then connects the backend; destroy_process_group leaves cleanly.
#include "ember/distributed/init.h"

#include <algorithm>
#include <cctype>
#include <mutex>

#include "distributed/rendezvous.h"
#include "distributed/socket.h"
#include "ember/distributed/prefix_store.h"
#include "ember/distributed/process_group_gloo.h"
#include "ember/distributed/process_group_nccl.h"
#include "ember/distributed/tcp_store.h"

namespace ember::distributed {
namespace {

struct DefaultGroup {
  std::mutex mutex;
  std::shared_ptr<ProcessGroup> group;
  std::shared_ptr<Store> store;
  TCPStore* tcp_store = nullptr;  // the rendezvous store when it is a TCPStore (liveness)
  int generation = 0;             // init/destroy cycles: each uses fresh keys in a shared store
};

// Never destroyed: tearing down sockets and threads during static destruction at exit would race
// with Gloo's own threads; the OS closes everything at exit.
DefaultGroup& default_state() {
  static DefaultGroup* state = new DefaultGroup();
  return *state;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

TCPStore* as_tcp_store(Store* store) {
  while (store) {
    if (auto* tcp = dynamic_cast<TCPStore*>(store)) return tcp;
    auto* prefix = dynamic_cast<PrefixStore*>(store);
    store = prefix ? prefix->underlying_store().get() : nullptr;
  }
  return nullptr;
}

// The address Gloo listens on: loopback when the master is local, otherwise the local address on
// the route to the master (the interface the other hosts can reach).
std::string gloo_hostname(const TCPStore* tcp) {
  if (!tcp || net::is_loopback(tcp->host())) return "127.0.0.1";
  return net::local_address_towards(tcp->host());
}

}  // namespace

bool is_available() {
  return true;
}

bool is_initialized() {
  auto& s = default_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.group != nullptr;
}

void init_process_group(const std::string& backend_name, const InitProcessGroupOptions& options) {
  auto& s = default_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  EMBER_CHECK(s.group == nullptr, ValueError,
              "init_process_group: trying to initialize the default process group twice (call "
              "destroy_process_group() first)");
  const std::string backend = lower(backend_name);
  EMBER_CHECK(backend == "gloo" || backend == "nccl", ValueError,
              "init_process_group: invalid backend '", backend_name,
              "' (choose \"gloo\" for CPU tensors or \"nccl\" for CUDA tensors)");
  EMBER_CHECK(options.timeout().count() > 0, ValueError,
              "init_process_group: the timeout must be positive, got ", options.timeout().count(),
              " ms");
  if (backend == "nccl" && !is_nccl_available()) {
    // Say why before any rendezvous: the other ranks would only see a timeout.
    ProcessGroupNCCL(nullptr, 0, 1, {});
  }

  std::shared_ptr<Store> store;
  int rank = options.rank(), world_size = options.world_size();
  std::string where;
  if (options.store()) {
    EMBER_CHECK(rank >= 0 && world_size >= 1 && rank < world_size, ValueError,
                "init_process_group: with a store, pass rank (0..world_size-1) and world_size; got "
                "rank ",
                rank, " and world_size ", world_size);
    store = options.store();
    where = "the given store";
  } else {
    RendezvousInfo info = resolve_init_method(options.init_method(), rank, world_size);
    rank = info.rank;
    world_size = info.world_size;
    TCPStoreOptions store_options;
    store_options.port = info.master_port;
    store_options.is_master = rank == 0;
    store_options.timeout = options.timeout();
    // One connection per rank, and room for a few more (tools, a second store client).
    store_options.max_connections = std::max(store_options.max_connections, world_size + 64);
    store = std::make_shared<TCPStore>(info.master_addr, store_options);
    where = net::endpoint(info.master_addr, info.master_port);
  }
  TCPStore* tcp = as_tcp_store(store.get());
  if (tcp) tcp->register_rank(rank);

  auto group_store =
      std::make_shared<PrefixStore>("ember/default_pg/" + std::to_string(s.generation), store);
  group_store->set_timeout(options.timeout());
  check_membership(*group_store, rank, world_size, options.timeout(), where);

  std::shared_ptr<ProcessGroup> group;
  if (backend == "gloo") {
    ProcessGroupGloo::Options o;
    o.timeout = options.timeout();
    o.hostname = gloo_hostname(tcp);
    group = std::make_shared<ProcessGroupGloo>(std::make_shared<PrefixStore>("gloo", group_store),
                                               rank, world_size, o);
  } else {
    ProcessGroupNCCL::Options o;
    o.timeout = options.timeout();
    group = std::make_shared<ProcessGroupNCCL>(std::make_shared<PrefixStore>("nccl", group_store),
                                               rank, world_size, o);
  }
  s.group = std::move(group);
  s.store = std::move(store);
  s.tcp_store = tcp;
  ++s.generation;
}

std::shared_ptr<ProcessGroup> default_group() {
  auto& s = default_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  EMBER_CHECK(s.group != nullptr, distributed::DistError,
              "Default process group has not been initialized, please make sure to call "
              "init_process_group.");
  return s.group;
}

int get_rank(const std::shared_ptr<ProcessGroup>& group) {
  return (group ? group : default_group())->getRank();
}

int get_world_size(const std::shared_ptr<ProcessGroup>& group) {
  return (group ? group : default_group())->getSize();
}

std::string get_backend(const std::shared_ptr<ProcessGroup>& group) {
  return (group ? group : default_group())->getBackendName();
}

void destroy_process_group() {
  auto& s = default_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.group) return;
  s.group->shutdown();
  if (s.tcp_store) {
    try {
      s.tcp_store->unregister_rank();
    } catch (const DistError&) {
      // The master is gone already: nothing to leave.
    }
  }
  s.group.reset();
  s.tcp_store = nullptr;
  s.store.reset();
}

}  // namespace ember::distributed
