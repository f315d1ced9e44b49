// Ranges: the per-thread stack, GPU events around ops on CUDA devices, NVTX.
#include "profiler/range.h"

#include "core/nvtx.h"

namespace ember::profiler::detail {
namespace {
thread_local Range* t_innermost = nullptr;
}  // namespace

Range* Range::innermost() {
  return t_innermost;
}

Range::Range(std::string name, EventKind kind, Device device) : session_(current_session()) {
  nvtx_ = nvtx_on(session_.get());
  if (nvtx_) ::ember::detail::nvtx_range_push(name.c_str());
  ev_.name = std::move(name);
  ev_.kind = kind;
  ev_.device = device;
  outer_ = t_innermost;
  t_innermost = this;
  if (!session_) return;
  ev_.id = session_->next_id();
  ev_.thread = current_thread_id();
  for (Range* r = outer_; r; r = r->outer_) {
    if (r->session_ == session_) {
      ev_.parent = r->ev_.id;
      break;
    }
  }
  if (session_->cuda && device.is_cuda() && kind == EventKind::Op) {
    try {
      const int d = device.index();
      session_->ensure_anchor(d);
      gpu_ = std::make_unique<GpuSpan>(cuda::current_stream(d));
      gpu_->start.record(gpu_->stream);
    } catch (const Error&) {
      gpu_.reset();  // a failed device: the op reports the error itself
    }
  }
  start_ns_ = now_ns();  // after the anchor's one-time sync, which is not the op's time
}

Range::~Range() {
  close();
}

void Range::close() {
  if (!open_) return;
  open_ = false;
  const int64_t end_ns = now_ns();
  // Unlink from the thread's stack; record_function::end() may close a range that is not the
  // innermost one.
  if (t_innermost == this) {
    t_innermost = outer_;
  } else {
    for (Range* r = t_innermost; r; r = r->outer_) {
      if (r->outer_ == this) {
        r->outer_ = outer_;
        break;
      }
    }
  }
  if (nvtx_) ::ember::detail::nvtx_range_pop();
  if (!session_) return;
  if (gpu_) {
    try {
      gpu_->end.record(gpu_->stream);
    } catch (const Error&) {
      gpu_.reset();  // the device failed inside the op: no GPU time, the error goes on
    }
  }
  ev_.start_us = session_->to_us(start_ns_);
  ev_.end_us = session_->to_us(end_ns);
  session_->add_event(std::move(ev_), std::move(gpu_));
}

void Range::add_input(const Tensor& t) {
  if (!records_shapes()) return;
  if (!t.defined()) {
    ev_.input_shapes.emplace_back();
    ev_.input_dtypes.emplace_back();
    return;
  }
  ev_.input_shapes.push_back(t.sizes().vec());
  ev_.input_dtypes.emplace_back(to_string(t.dtype()));
}

}  // namespace ember::profiler::detail
