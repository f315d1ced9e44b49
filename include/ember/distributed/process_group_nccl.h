#pragma once
// ProcessGroupNCCL: collectives on CUDA tensors through NCCL, one process per GPU. The ranks
// exchange the NCCL unique id through the store. Built when Ember is compiled with CUDA
// (-DEMBER_CUDA=ON); on simulated devices or without CUDA, constructing one throws
// NotImplementedError saying why.
#include <chrono>
#include <memory>

#include "ember/distributed/process_group.h"
#include "ember/distributed/store.h"

namespace ember::distributed {

class EMBER_API ProcessGroupNCCL : public ProcessGroup {
 public:
  struct Options {
    std::chrono::milliseconds timeout = std::chrono::minutes(30);
  };

  ProcessGroupNCCL(const std::shared_ptr<Store>& store, int rank, int size, Options options);
  ~ProcessGroupNCCL() override;

  std::string getBackendName() const override { return "nccl"; }
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

// Whether this build can run NCCL (a real CUDA build; false on simulated devices).
EMBER_API bool is_nccl_available();

}  // namespace ember::distributed
