#pragma once
// Membership checks before a backend connects: every rank announces itself in the store, and
// the ranks agree on the world size with no rank taken twice; a rank missing at the timeout is
// named.
#include <chrono>
#include <string>

#include "ember/distributed/store.h"

namespace ember::distributed {

// Where init_process_group finds rank 0's store and who this process is.
struct RendezvousInfo {
  std::string master_addr;
  uint16_t master_port = 0;
  int rank = -1;
  int world_size = -1;
};

// Reads env:// or tcp://host:port (explicit rank/world_size win over RANK/WORLD_SIZE) and
// checks the values; throws ValueError naming the variable or option at fault.
RendezvousInfo resolve_init_method(const std::string& init_method, int rank, int world_size);

// Announces `rank` in `store` and waits (up to `timeout`) until world_size ranks have; throws
// DistStoreError naming the missing ranks, or ValueError on a world-size mismatch or a rank
// claimed twice.
void check_membership(Store& store, int rank, int world_size, std::chrono::milliseconds timeout,
                      const std::string& where);

}  // namespace ember::distributed
