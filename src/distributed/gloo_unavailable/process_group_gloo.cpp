// ProcessGroupGloo in a build configured without Gloo (libgloo-dev missing): constructing one
// says how to get it.
#include "ember/distributed/process_group_gloo.h"

namespace ember::distributed {

struct ProcessGroupGloo::Impl {};

bool is_gloo_available() {
  return false;
}

namespace {
[[noreturn]] void unavailable() {
  throw NotImplementedError(
      "the Gloo backend is not available: this Ember was configured without Gloo (install "
      "Debian's libgloo-dev, e.g. with scripts/install-deps, and configure again)");
}
}  // namespace

ProcessGroupGloo::ProcessGroupGloo(const std::shared_ptr<Store>&, int rank, int size, Options)
    : ProcessGroup(rank, size) {
  unavailable();
}
ProcessGroupGloo::~ProcessGroupGloo() = default;
std::chrono::milliseconds ProcessGroupGloo::getTimeout() const {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupGloo::allreduce(std::vector<Tensor>&, const AllreduceOptions&) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupGloo::broadcast(std::vector<Tensor>&, const BroadcastOptions&) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupGloo::allgather(std::vector<std::vector<Tensor>>&,
                                                  std::vector<Tensor>&, const AllgatherOptions&) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupGloo::_allgather_base(Tensor&, Tensor&, const AllgatherOptions&) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupGloo::reduce_scatter(std::vector<Tensor>&,
                                                       std::vector<std::vector<Tensor>>&,
                                                       const ReduceScatterOptions&) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupGloo::_reduce_scatter_base(Tensor&, Tensor&,
                                                             const ReduceScatterOptions&) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupGloo::send(std::vector<Tensor>&, int, int) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupGloo::recv(std::vector<Tensor>&, int, int) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupGloo::recvAnysource(std::vector<Tensor>&, int) {
  unavailable();
}
std::shared_ptr<Work> ProcessGroupGloo::barrier(const BarrierOptions&) {
  unavailable();
}
void ProcessGroupGloo::shutdown() {}

}  // namespace ember::distributed
