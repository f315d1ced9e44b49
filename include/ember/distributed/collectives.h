#pragma once
// torch.distributed's collectives in C++ spelling. Each runs on `group` (default: the group of
// init_process_group). Without async_op they return once done (nullptr); with async_op they
// return a Work to wait() on, and the tensors must stay untouched until then.
//
//   ember::distributed::all_reduce(grad);                                  // sum over ranks
//   auto work = ember::distributed::all_reduce(t, ReduceOp::AVG, true);   // async
//   work->wait();
#include <memory>
#include <optional>
#include <vector>

#include "ember/distributed/process_group.h"
#include "ember/distributed/reduce_op.h"
#include "ember/distributed/work.h"

namespace ember::distributed {

using GroupPtr = std::shared_ptr<ProcessGroup>;

EMBER_API std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::SUM,
                                           bool async_op = false, const GroupPtr& group = nullptr);
EMBER_API std::shared_ptr<Work> broadcast(Tensor& tensor, int src, bool async_op = false,
                                          const GroupPtr& group = nullptr);
// tensor_list gets world_size tensors shaped as `tensor` (allocated when it is empty).
EMBER_API std::shared_ptr<Work> all_gather(std::vector<Tensor>& tensor_list, const Tensor& tensor,
                                           bool async_op = false, const GroupPtr& group = nullptr);
// output: [world_size * n, ...] for an input [n, ...].
EMBER_API std::shared_ptr<Work> all_gather_into_tensor(Tensor& output, const Tensor& input,
                                                       bool async_op = false,
                                                       const GroupPtr& group = nullptr);
// output receives the reduction over ranks of input_list[rank].
EMBER_API std::shared_ptr<Work> reduce_scatter(Tensor& output,
                                               const std::vector<Tensor>& input_list,
                                               ReduceOp op = ReduceOp::SUM, bool async_op = false,
                                               const GroupPtr& group = nullptr);
// input: [world_size * n, ...]; output [n, ...] receives this rank's block of the reduction.
EMBER_API std::shared_ptr<Work> reduce_scatter_tensor(Tensor& output, const Tensor& input,
                                                      ReduceOp op = ReduceOp::SUM,
                                                      bool async_op = false,
                                                      const GroupPtr& group = nullptr);
EMBER_API void send(const Tensor& tensor, int dst, const GroupPtr& group = nullptr, int tag = 0);
// From `src`, or from any rank when it is empty; returns the sender's rank.
EMBER_API int recv(Tensor& tensor, std::optional<int> src = std::nullopt,
                   const GroupPtr& group = nullptr, int tag = 0);
EMBER_API std::shared_ptr<Work> isend(const Tensor& tensor, int dst,
                                      const GroupPtr& group = nullptr, int tag = 0);
EMBER_API std::shared_ptr<Work> irecv(Tensor& tensor, std::optional<int> src = std::nullopt,
                                      const GroupPtr& group = nullptr, int tag = 0);
EMBER_API std::shared_ptr<Work> barrier(bool async_op = false, const GroupPtr& group = nullptr);

}  // namespace ember::distributed
