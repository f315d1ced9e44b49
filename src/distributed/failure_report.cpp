// describe_collective_failure: asks the rendezvous store which ranks died.
#include "distributed/failure_report.h"

#include <sstream>
#include <thread>

#include "ember/distributed/prefix_store.h"
#include "ember/distributed/tcp_store.h"

namespace ember::distributed {
namespace {

TCPStore* find_tcp_store(Store* store) {
  while (store) {
    if (auto* tcp = dynamic_cast<TCPStore*>(store)) return tcp;
    auto* prefix = dynamic_cast<PrefixStore*>(store);
    store = prefix ? prefix->underlying_store().get() : nullptr;
  }
  return nullptr;
}

std::string ranks_text(const std::vector<int>& ranks) {
  std::ostringstream os;
  os << (ranks.size() == 1 ? "rank " : "ranks ");
  for (size_t i = 0; i < ranks.size(); ++i) os << (i ? ", " : "") << ranks[i];
  return os.str();
}

}  // namespace

std::string describe_collective_failure(const std::string& backend, const std::string& op, int rank,
                                        int size, const std::string& backend_message,
                                        bool timed_out, std::chrono::milliseconds timeout,
                                        Store* store) {
  std::ostringstream os;
  os << backend << " " << op << (timed_out ? " timed out" : " failed") << " on rank " << rank
     << " of " << size;
  if (timed_out) os << " after " << static_cast<double>(timeout.count()) / 1000.0 << " s";
  os << ": ";
  TCPStore* tcp = find_tcp_store(store);
  std::string cause;
  if (tcp) {
    try {
      // A dead peer's store connection closes at the same moment as its Gloo sockets: give the
      // store a moment to notice before concluding nobody is gone.
      std::vector<int> gone = tcp->departed_ranks();
      for (int i = 0; gone.empty() && !timed_out && i < 20; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        gone = tcp->departed_ranks();
      }
      if (!gone.empty()) {
        // The store lists ranks in the order their connections closed: the first is the cause,
        // the others (often ranks that failed because of it) left afterwards.
        cause = "rank " + std::to_string(gone[0]) +
                " has exited or died (its connection to the rendezvous store closed";
        if (gone.size() > 1) {
          cause += " first; then " + ranks_text({gone.begin() + 1, gone.end()}) + " left too";
        }
        cause += ")";
      }
    } catch (const DistError&) {
      cause = rank == 0 ? "the rendezvous store is unreachable"
                        : "rank 0 has exited or died (the rendezvous store it runs is unreachable)";
    }
  }
  if (cause.empty()) {
    cause = timed_out ? "a peer did not take part in time (stuck, much slower, or issuing a "
                        "different sequence of collectives)"
                      : "a peer closed its connection";
  }
  os << cause << ". " << backend << " reported: " << backend_message;
  return os.str();
}

}  // namespace ember::distributed
