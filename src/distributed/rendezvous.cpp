// resolve_init_method and check_membership.
#include "distributed/rendezvous.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace ember::distributed {
namespace {

int parse_int(const std::string& text, const std::string& what) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  EMBER_CHECK(used == text.size() && !text.empty(), ValueError, what, "='", text,
              "' is not an integer");
  return static_cast<int>(v);
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string required_env(const char* name) {
  std::string v = env_or_empty(name);
  EMBER_CHECK(!v.empty(), ValueError,
              "init_process_group(init_method=\"env://\"): environment "
              "variable ",
              name,
              " is not set. Start the program with ember-run (which sets "
              "MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE and LOCAL_RANK), set them yourself, or "
              "pass init_method \"tcp://host:port\" with rank and world_size");
  return v;
}

uint16_t parse_port(const std::string& text, const std::string& what) {
  int p = parse_int(text, what);
  EMBER_CHECK(p > 0 && p < 65536, ValueError, what, "=", p, " is not a TCP port (1..65535)");
  return static_cast<uint16_t>(p);
}

std::string ranks_list(const std::vector<int>& ranks) {
  std::ostringstream os;
  for (size_t i = 0; i < ranks.size(); ++i) os << (i ? ", " : "") << ranks[i];
  return os.str();
}

// The "complete" key's value when the membership check failed (followed by the reason).
const char* const kMembershipFailed = "failed: ";

std::string this_process() {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return detail::str_cat(host, ":", ::getpid());
}

}  // namespace

RendezvousInfo resolve_init_method(const std::string& init_method, int rank, int world_size) {
  RendezvousInfo info;
  info.rank = rank;
  info.world_size = world_size;
  if (init_method == "env://" || init_method.empty()) {
    info.master_addr = required_env("MASTER_ADDR");
    info.master_port = parse_port(required_env("MASTER_PORT"), "MASTER_PORT");
    if (info.rank < 0) info.rank = parse_int(required_env("RANK"), "RANK");
    if (info.world_size < 0) info.world_size = parse_int(required_env("WORLD_SIZE"), "WORLD_SIZE");
  } else if (init_method.rfind("tcp://", 0) == 0) {
    std::string rest = init_method.substr(6);
    size_t colon = rest.rfind(':');
    EMBER_CHECK(colon != std::string::npos && colon + 1 < rest.size(), ValueError,
                "init_process_group: init_method '", init_method,
                "' has no port (tcp://host:port)");
    info.master_addr = rest.substr(0, colon);
    if (info.master_addr.size() > 2 && info.master_addr.front() == '[') {
      info.master_addr = info.master_addr.substr(1, info.master_addr.size() - 2);
    }
    info.master_port = parse_port(rest.substr(colon + 1), "the port of init_method " + init_method);
    EMBER_CHECK(info.rank >= 0 && info.world_size >= 1, ValueError,
                "init_process_group: with "
                "init_method '",
                init_method, "' pass rank and world_size in the options");
  } else {
    throw ValueError(detail::str_cat("init_process_group: unsupported init_method '", init_method,
                                     "' (use \"env://\" or \"tcp://host:port\")"));
  }
  EMBER_CHECK(info.world_size >= 1, ValueError,
              "init_process_group: WORLD_SIZE must be at least "
              "1, got ",
              info.world_size);
  EMBER_CHECK(info.rank >= 0 && info.rank < info.world_size, ValueError,
              "init_process_group: RANK=", info.rank,
              " is out of range for WORLD_SIZE=", info.world_size, " (ranks are 0..",
              info.world_size - 1, ")");
  return info;
}

void check_membership(Store& store, int rank, int world_size, std::chrono::milliseconds timeout,
                      const std::string& where) {
  const std::string me = this_process();
  // A rank is claimed once: a second process started with the same RANK is refused by name.
  std::string rank_key = "ember/members/rank/" + std::to_string(rank);
  auto owner = store.compare_set(rank_key, {}, std::vector<uint8_t>(me.begin(), me.end()));
  std::string owner_text(owner.begin(), owner.end());
  EMBER_CHECK(owner_text == me, ValueError, "init_process_group: rank ", rank,
              " is already taken by process ", owner_text, " (this is ", me,
              "): two processes were started with RANK=", rank);
  store.set("ember/members/world_size/" + std::to_string(rank), std::to_string(world_size));
  // The first rank to check in sets the world size; every later one compares with it at once, so
  // a disagreement is named as soon as a rank of a different mind arrives (not at the timeout,
  // with ranks waiting for a count that cannot be reached). The rank that finds it wakes the
  // waiting ranks with the same message through the "complete" key.
  const std::string mine = detail::str_cat(world_size, " ", rank);
  auto first_bytes = store.compare_set("ember/members/agreed_world_size", {},
                                       std::vector<uint8_t>(mine.begin(), mine.end()));
  std::string first(first_bytes.begin(), first_bytes.end());
  int first_size = world_size, first_rank = rank;
  if (std::sscanf(first.c_str(), "%d %d", &first_size, &first_rank) == 2 &&
      first_size != world_size) {
    std::string message = detail::str_cat("init_process_group: world size mismatch: rank ", rank,
                                          " was started with WORLD_SIZE=", world_size, " but rank ",
                                          first_rank, " with WORLD_SIZE=", first_size,
                                          ". Start every process with the same WORLD_SIZE");
    std::string failed = kMembershipFailed + message;
    store.compare_set("ember/members/complete", {},
                      std::vector<uint8_t>(failed.begin(), failed.end()));
    throw ValueError(message);
  }
  if (store.add("ember/members/joined", 1) == world_size) {
    store.compare_set("ember/members/complete", {}, std::vector<uint8_t>{'1'});
  }
  try {
    store.wait({"ember/members/complete"}, timeout);
  } catch (const DistStoreError&) {
    std::vector<int> missing, present;
    for (int r = 0; r < world_size; ++r) {
      (store.check({"ember/members/world_size/" + std::to_string(r)}) ? present : missing)
          .push_back(r);
    }
    throw DistStoreError(detail::str_cat(
        "init_process_group: rank ", rank, " waited ",
        static_cast<double>(timeout.count()) / 1000.0, " s at ", where, " for all ", world_size,
        " ranks to join; missing: rank", missing.size() == 1 ? " " : "s ", ranks_list(missing),
        " (joined: ", ranks_list(present),
        "). Was every process started, with the same "
        "MASTER_ADDR/MASTER_PORT and WORLD_SIZE?"));
  }
  std::string complete = store.get_string("ember/members/complete");
  EMBER_CHECK(complete.rfind(kMembershipFailed, 0) != 0, ValueError,
              complete.substr(std::strlen(kMembershipFailed)));
  int64_t joined = store.add("ember/members/joined", 0);
  EMBER_CHECK(joined == world_size, ValueError, "init_process_group: world size mismatch: ", joined,
              " processes joined the rendezvous at ", where, " but rank ", rank,
              " was started with WORLD_SIZE=", world_size);
}

}  // namespace ember::distributed
