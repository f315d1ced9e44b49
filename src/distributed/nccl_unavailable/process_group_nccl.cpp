// ProcessGroupNCCL where NCCL cannot run: a build without CUDA, a CUDA build without NCCL, or
// simulated CUDA devices (NCCL drives real GPUs and is not simulated). Constructing one says
// which and what to use instead.
#include "ember/distributed/process_group_nccl.h"
#include "ember/cuda.h"

namespace ember::distributed {

struct ProcessGroupNCCL::Impl {};

bool is_nccl_available() {
  return false;
}

namespace {
[[noreturn]] void unavailable() {
  if (cuda::is_simulated()) {
    throw NotImplementedError(
        "the NCCL backend cannot run on the CUDA simulator (this Ember was built with "
        "-DEMBER_CUDA=SIM): NCCL talks to real GPUs and is not simulated. Use the \"gloo\" "
        "backend, which stages CUDA tensors through host memory, or build with -DEMBER_CUDA=ON "
        "for real GPUs");
  }
  // Simulated devices said so above; EMBER_WITH_CUDA is also defined on those builds.
#if defined(EMBER_WITH_CUDA)
  throw NotImplementedError(
      "the NCCL backend is not in this Ember: it was built with CUDA but NCCL (libnccl and "
      "nccl.h) was not found at configure time (set EMBER_NCCL_LIBRARY and "
      "EMBER_NCCL_INCLUDE_DIR). Use the \"gloo\" backend, which stages CUDA tensors through host "
      "memory");
#else
  throw NotImplementedError(
      "the NCCL backend needs CUDA, and this Ember was built without it (configure with "
      "-DEMBER_CUDA=ON). Use the \"gloo\" backend for CPU tensors");
#endif
}
}  // namespace

ProcessGroupNCCL::ProcessGroupNCCL(const std::shared_ptr<Store>&, int rank, int size, Options)
    : ProcessGroup(rank, size) {
  unavailable();
}
ProcessGroupNCCL::~ProcessGroupNCCL() = default;
std::chrono::milliseconds ProcessGroupNCCL::getTimeout() const {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupNCCL::allreduce(std::vector<Tensor>&, const AllreduceOptions&) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupNCCL::broadcast(std::vector<Tensor>&, const BroadcastOptions&) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupNCCL::allgather(std::vector<std::vector<Tensor>>&,
                                                  std::vector<Tensor>&, const AllgatherOptions&) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupNCCL::_allgather_base(Tensor&, Tensor&, const AllgatherOptions&) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupNCCL::reduce_scatter(std::vector<Tensor>&,
                                                       std::vector<std::vector<Tensor>>&,
                                                       const ReduceScatterOptions&) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupNCCL::_reduce_scatter_base(Tensor&, Tensor&,
                                                             const ReduceScatterOptions&) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupNCCL::send(std::vector<Tensor>&, int, int) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupNCCL::recv(std::vector<Tensor>&, int, int) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupNCCL::recvAnysource(std::vector<Tensor>&, int) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupNCCL::barrier(const BarrierOptions&) {
  unavailable();
}
void ProcessGroupNCCL::shutdown() {}

}  // namespace ember::distributed
