#pragma once
// A range on the current thread: record_function, ProfilerStep#N, autograd's evaluate_function,
// backend ops and host syncs are all one. Ranges form a per-thread stack, so an event knows its
// parent and memory, copies and kernel launches are charged to the innermost range. Opened only
// while the profiler is enabled (an NVTX range too when NVTX is on).
#include <memory>
#include <string>

#include "ember/profiler.h"
#include "ember/tensor.h"
#include "profiler/session.h"

namespace ember::profiler::detail {

class Range {
 public:
  Range(std::string name, EventKind kind, Device device = Device(kCPU));
  ~Range();
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;

  // Closes the range now (the destructor does otherwise).
  void close();
  // Adds an input's shape and dtype (with record_shapes).
  void add_input(const Tensor& t);
  bool records_shapes() const { return session_ && session_->record_shapes; }
  Session* session() const { return session_.get(); }
  FunctionEvent& event() { return ev_; }

  // The innermost open range of this thread, or null; outer() is the next one out.
  static Range* innermost();
  Range* outer() const { return outer_; }

 private:
  std::shared_ptr<Session> session_;
  FunctionEvent ev_;
  int64_t start_ns_ = 0;
  std::unique_ptr<GpuSpan> gpu_;
  Range* outer_ = nullptr;
  bool open_ = true;
  bool nvtx_ = false;
};

}  // namespace ember::profiler::detail
