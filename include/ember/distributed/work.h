#pragma once
// Work: the handle of an asynchronous collective (torch.distributed's async_op=True result).
// wait() blocks until the operation finished and rethrows its failure; the tensors it was given
// hold the result afterwards.
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "ember/distributed/errors.h"
#include "ember/tensor.h"

namespace ember::distributed {

class EMBER_API Work {
 public:
  explicit Work(std::string op_name) : op_name_(std::move(op_name)) {}
  virtual ~Work() = default;
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;

  // Blocks until the operation completes; rethrows its error. With a timeout, throws
  // DistBackendError once it passes (the operation itself goes on).
  virtual bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds::zero());
  bool is_completed();
  bool is_success();
  std::exception_ptr exception();
  // The output tensors (the input tensors for in-place collectives).
  std::vector<Tensor> result();
  const std::string& op_name() const { return op_name_; }
  // For recv from any source: the rank the message came from (-1 otherwise).
  int source_rank();
  // When the operation completed (the epoch of steady_clock until then).
  std::chrono::steady_clock::time_point finished_at();

  // Called once by whoever ran the operation.
  void finish(std::exception_ptr error = nullptr, int source_rank = -1);
  void set_result(std::vector<Tensor> result);

 protected:
  std::string op_name_;
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool completed_ = false;
  std::exception_ptr error_;
  std::vector<Tensor> result_;
  int source_rank_ = -1;
  std::chrono::steady_clock::time_point finished_at_{};
};

}  // namespace ember::distributed
