#pragma once
// torch.distributed's process-group lifecycle in C++ spelling:
//
//   ember::distributed::init_process_group("gloo");          // env:// (set by ember-run)
//   int rank = ember::distributed::get_rank();
//   ...
//   ember::distributed::destroy_process_group();
//
// env:// reads MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE (torchrun's variables);
// tcp://host:port takes rank and world size from the options; or pass a Store of your own. Rank 0
// runs the rendezvous TCPStore. Every rank checks that all ranks agree on the world size and that
// no rank is taken twice before the backend connects.
#include <chrono>
#include <memory>
#include <string>

#include "ember/distributed/process_group.h"
#include "ember/distributed/store.h"
#include "ember/nn/arg.h"

namespace ember::distributed {

// PyTorch's default_pg_timeout.
constexpr std::chrono::milliseconds kDefaultProcessGroupTimeout = std::chrono::minutes(30);

struct InitProcessGroupOptions {
  // "env://" (default) or "tcp://host:port".
  EMBER_ARG(std::string, init_method) = "env://";
  // -1: from WORLD_SIZE / RANK (env://).
  EMBER_ARG(int, world_size) = -1;
  EMBER_ARG(int, rank) = -1;
  // A store to rendezvous through instead of init_method (rank and world_size required).
  EMBER_ARG(std::shared_ptr<Store>, store) = nullptr;
  // Bounds the rendezvous and every collective: a dead or stuck peer fails the others by then.
  EMBER_ARG(std::chrono::milliseconds, timeout) = kDefaultProcessGroupTimeout;
};

// backend: "gloo" (CPU tensors; CUDA tensors through host memory) or "nccl" (CUDA tensors).
EMBER_API void init_process_group(const std::string& backend,
                                  const InitProcessGroupOptions& options = {});
EMBER_API bool is_initialized();
EMBER_API bool is_available();
// The group collectives use when given none (torch.distributed.group.WORLD). Throws when
// init_process_group has not been called.
EMBER_API std::shared_ptr<ProcessGroup> default_group();
EMBER_API int get_rank(const std::shared_ptr<ProcessGroup>& group = nullptr);
EMBER_API int get_world_size(const std::shared_ptr<ProcessGroup>& group = nullptr);
EMBER_API std::string get_backend(const std::shared_ptr<ProcessGroup>& group = nullptr);
// Finishes queued work, leaves the rendezvous cleanly and releases the connections.
EMBER_API void destroy_process_group();

}  // namespace ember::distributed
