#pragma once
// ProcessGroup: a set of ranks and a backend that runs collectives among them (c10d's interface,
// with its method and option names). Every call is asynchronous and returns a Work; operations
// run in the order they were issued, the same order on every rank.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/reduce_op.h"
#include "ember/distributed/work.h"
#include "ember/tensor.h"

namespace ember::distributed {

// A timeout of zero means "the group's timeout".
constexpr std::chrono::milliseconds kUnsetTimeout{0};

struct AllreduceOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct BroadcastOptions {
  int64_t rootRank = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct AllgatherOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct ReduceScatterOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct BarrierOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

class EMBER_API ProcessGroup {
 public:
  ProcessGroup(int rank, int size) : rank_(rank), size_(size) {}
  virtual ~ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int getRank() const { return rank_; }
  int getSize() const { return size_; }
  virtual std::string getBackendName() const = 0;
  virtual std::chrono::milliseconds getTimeout() const = 0;

  // Each takes one tensor per call (c10d's lists, without multi-device entries). Tensors must be
  // contiguous; the result is written in place.
  virtual std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors,
                                          const AllreduceOptions& opts = {}) = 0;
  virtual std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors,
                                          const BroadcastOptions& opts = {}) = 0;
  // outputs[0] receives one tensor per rank, shaped as inputs[0].
  virtual std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputs,
                                          std::vector<Tensor>& inputs,
                                          const AllgatherOptions& opts = {}) = 0;
  // output is [world_size * n, ...] for an input [n, ...].
  virtual std::shared_ptr<Work> _allgather_base(Tensor& output, Tensor& input,
                                                const AllgatherOptions& opts = {}) = 0;
  // outputs[0] receives the reduction of everyone's inputs[0][rank].
  virtual std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& outputs,
                                               std::vector<std::vector<Tensor>>& inputs,
                                               const ReduceScatterOptions& opts = {}) = 0;
  // input is [world_size * n, ...]; output [n, ...] receives this rank's block of the reduction.
  virtual std::shared_ptr<Work> _reduce_scatter_base(Tensor& output, Tensor& input,
                                                     const ReduceScatterOptions& opts = {}) = 0;
  virtual std::shared_ptr<Work> send(std::vector<Tensor>& tensors, int dstRank, int tag) = 0;
  virtual std::shared_ptr<Work> recv(std::vector<Tensor>& tensors, int srcRank, int tag) = 0;
  virtual std::shared_ptr<Work> recvAnysource(std::vector<Tensor>& tensors, int tag) = 0;
  virtual std::shared_ptr<Work> barrier(const BarrierOptions& opts = {}) = 0;

  // Finishes the queued work and releases the backend's connections.
  virtual void shutdown() = 0;

 protected:
  int rank_;
  int size_;
};

}  // namespace ember::distributed
