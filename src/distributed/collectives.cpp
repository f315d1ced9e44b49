// The torch.distributed functions: argument shaping around the group's c10d-style methods.
#include "ember/distributed/collectives.h"

#include "ember/distributed/init.h"
#include "ember/ops.h"

namespace ember::distributed {
namespace {

ProcessGroup& resolve(const GroupPtr& group, std::shared_ptr<ProcessGroup>& hold) {
  hold = group ? group : default_group();
  return *hold;
}

std::shared_ptr<Work> finish(std::shared_ptr<Work> work, bool async_op) {
  if (async_op) return work;
  work->wait();
  return nullptr;
}

}  // namespace

std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op, bool async_op,
                                 const GroupPtr& group) {
  GroupPtr hold;
  std::vector<Tensor> tensors{tensor};
  AllreduceOptions o;
  o.reduceOp = op;
  return finish(resolve(group, hold).allreduce(tensors, o), async_op);
}

std::shared_ptr<Work> broadcast(Tensor& tensor, int src, bool async_op, const GroupPtr& group) {
  GroupPtr hold;
  std::vector<Tensor> tensors{tensor};
  BroadcastOptions o;
  o.rootRank = src;
  return finish(resolve(group, hold).broadcast(tensors, o), async_op);
}

std::shared_ptr<Work> all_gather(std::vector<Tensor>& tensor_list, const Tensor& tensor,
                                 bool async_op, const GroupPtr& group) {
  GroupPtr hold;
  ProcessGroup& pg = resolve(group, hold);
  if (tensor_list.empty()) {
    for (int r = 0; r < pg.getSize(); ++r) tensor_list.push_back(empty_like(tensor));
  }
  std::vector<std::vector<Tensor>> outputs{tensor_list};
  std::vector<Tensor> inputs{tensor};
  return finish(pg.allgather(outputs, inputs), async_op);
}

std::shared_ptr<Work> all_gather_into_tensor(Tensor& output, const Tensor& input, bool async_op,
                                             const GroupPtr& group) {
  GroupPtr hold;
  Tensor in = input;
  return finish(resolve(group, hold)._allgather_base(output, in), async_op);
}

std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& input_list,
                                     ReduceOp op, bool async_op, const GroupPtr& group) {
  GroupPtr hold;
  std::vector<Tensor> outputs{output};
  std::vector<std::vector<Tensor>> inputs{input_list};
  ReduceScatterOptions o;
  o.reduceOp = op;
  return finish(resolve(group, hold).reduce_scatter(outputs, inputs, o), async_op);
}

std::shared_ptr<Work> reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op,
                                            bool async_op, const GroupPtr& group) {
  GroupPtr hold;
  Tensor in = input;
  ReduceScatterOptions o;
  o.reduceOp = op;
  return finish(resolve(group, hold)._reduce_scatter_base(output, in, o), async_op);
}

std::shared_ptr<Work> isend(const Tensor& tensor, int dst, const GroupPtr& group, int tag) {
  GroupPtr hold;
  std::vector<Tensor> tensors{tensor};
  return resolve(group, hold).send(tensors, dst, tag);
}

std::shared_ptr<Work> irecv(Tensor& tensor, std::optional<int> src, const GroupPtr& group,
                            int tag) {
  GroupPtr hold;
  ProcessGroup& pg = resolve(group, hold);
  std::vector<Tensor> tensors{tensor};
  return src ? pg.recv(tensors, *src, tag) : pg.recvAnysource(tensors, tag);
}

void send(const Tensor& tensor, int dst, const GroupPtr& group, int tag) {
  isend(tensor, dst, group, tag)->wait();
}

int recv(Tensor& tensor, std::optional<int> src, const GroupPtr& group, int tag) {
  auto work = irecv(tensor, src, group, tag);
  work->wait();
  return src ? *src : work->source_rank();
}

std::shared_ptr<Work> barrier(bool async_op, const GroupPtr& group) {
  GroupPtr hold;
  return finish(resolve(group, hold).barrier(), async_op);
}

}  // namespace ember::distributed
