// Work: completion flag, error and result of one asynchronous operation.
#include "ember/distributed/work.h"

#include <sstream>

namespace ember::distributed {

bool Work::wait(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout.count() > 0) {
    if (!done_cv_.wait_for(lock, timeout, [this] { return completed_; })) {
      std::ostringstream os;
      os << op_name_ << ": Work::wait timed out after " << timeout.count() << " ms";
      throw DistBackendError(os.str());
    }
  } else {
    done_cv_.wait(lock, [this] { return completed_; });
  }
  if (error_) std::rethrow_exception(error_);
  return true;
}

bool Work::is_completed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

bool Work::is_success() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ && !error_;
}

std::exception_ptr Work::exception() {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

std::vector<Tensor> Work::result() {
  std::lock_guard<std::mutex> lock(mutex_);
  return result_;
}

int Work::source_rank() {
  std::lock_guard<std::mutex> lock(mutex_);
  return source_rank_;
}

std::chrono::steady_clock::time_point Work::finished_at() {
  std::lock_guard<std::mutex> lock(mutex_);
  return finished_at_;
}

void Work::set_result(std::vector<Tensor> result) {
  std::lock_guard<std::mutex> lock(mutex_);
  result_ = std::move(result);
}

void Work::finish(std::exception_ptr error, int source_rank) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = std::move(error);
    source_rank_ = source_rank;
    finished_at_ = std::chrono::steady_clock::now();
    completed_ = true;
  }
  done_cv_.notify_all();
}

}  // namespace ember::distributed
