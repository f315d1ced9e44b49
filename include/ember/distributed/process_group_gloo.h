#pragma once
// ProcessGroupGloo: collectives on CPU tensors through Gloo's TCP transport (CUDA tensors are
// staged through host memory, as PyTorch's Gloo backend does).
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "ember/distributed/process_group.h"
#include "ember/distributed/store.h"

namespace ember::distributed {

class EMBER_API ProcessGroupGloo : public ProcessGroup {
 public:
  struct Options {
    std::chrono::milliseconds timeout = std::chrono::minutes(30);
    // The address Gloo listens on for its peers (empty: 127.0.0.1). The interface named by
    // GLOO_SOCKET_IFNAME, when set, wins.
    std::string hostname;
    // The largest piece all_reduce sends or receives at once (Gloo's ring keeps two in flight).
    // Gloo's default is 1 MiB; 4 MiB halves the thread wake-ups per byte, which on loopback with
    // two ranks gave 12-15% more all-reduce bandwidth (docs/performance.md). Must be positive.
    size_t allreduce_segment_bytes = size_t(4) << 20;
  };

  // Connects to every other rank through the addresses they publish in `store`.
  ProcessGroupGloo(const std::shared_ptr<Store>& store, int rank, int size, Options options);
  ~ProcessGroupGloo() override;

  std::string getBackendName() const override { return "gloo"; }
  std::chrono::milliseconds getTimeout() const override;

  std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors,
                                  const AllreduceOptions& opts = {}) override;
  std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors,
                                  const BroadcastOptions& opts = {}) override;
  std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputs,
                                  std::vector<Tensor>& inputs,
                                  const AllgatherOptions& opts = {}) override;
  std::shared_ptr<Work> _allgather_base(Tensor& output, Tensor& input,
                                        const AllgatherOptions& opts = {}) override;
  std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& outputs,
                                       std::vector<std::vector<Tensor>>& inputs,
                                       const ReduceScatterOptions& opts = {}) override;
  std::shared_ptr<Work> _reduce_scatter_base(Tensor& output, Tensor& input,
                                             const ReduceScatterOptions& opts = {}) override;
  std::shared_ptr<Work> send(std::vector<Tensor>& tensors, int dstRank, int tag) override;
  std::shared_ptr<Work> recv(std::vector<Tensor>& tensors, int srcRank, int tag) override;
  std::shared_ptr<Work> recvAnysource(std::vector<Tensor>& tensors, int tag) override;
  std::shared_ptr<Work> barrier(const BarrierOptions& opts = {}) override;
  void shutdown() override;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Whether this build has Gloo (libgloo-dev at configure time).
EMBER_API bool is_gloo_available();

}  // namespace ember::distributed
