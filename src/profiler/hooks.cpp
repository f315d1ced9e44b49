// The hooks' side of the profiler: each event is charged to the innermost range of the thread.
#include "profiler/hooks.h"

#include "core/device_audit.h"
#include "profiler/evaluate_function.h"
#include "profiler/range.h"

namespace ember::profiler::detail {
namespace {

// This thread's last allocation while it may still become an op's output (claim_output).
struct LastAllocation {
  const Session* session = nullptr;
  const void* p = nullptr;
  int64_t bytes = 0;
  bool cuda = false;
  int64_t charged_to = -1;
};
thread_local LastAllocation t_last;

// The innermost open range of this thread that belongs to `s`.
Range* innermost_of(const Session* s) {
  for (Range* r = Range::innermost(); r; r = r->outer()) {
    if (r->session() == s) return r;
  }
  return nullptr;
}

const char* direction_name(audit::CopyDirection d) {
  switch (d) {
    case audit::CopyDirection::HostToDevice:
      return "HtoD";
    case audit::CopyDirection::DeviceToHost:
      return "DtoH";
    case audit::CopyDirection::DeviceToDevice:
      return "DtoD";
  }
  return "?";
}

}  // namespace

void on_copy(audit::CopyDirection direction, size_t bytes, bool pinned, bool blocking) {
  std::shared_ptr<Session> s = current_session();
  if (!s) return;
  Range* r = innermost_of(s.get());
  s->add_copy(CopyEvent{s->to_us(now_ns()), direction_name(direction), static_cast<int64_t>(bytes),
                        pinned, blocking, current_thread_id(), r ? r->event().id : -1});
}

void on_kernel_launch() {
  std::shared_ptr<Session> s = current_session();
  if (!s) return;
  if (Range* r = innermost_of(s.get())) r->event().kernel_launches += 1;
}

void on_sync(bool implicit, double wait_ms, const char* call, const char* what) {
  if (InternalScope::active()) return;
  std::shared_ptr<Session> s = current_session();
  if (!s) return;
  const int64_t end = now_ns();
  FunctionEvent ev;
  ev.id = s->next_id();
  Range* r = innermost_of(s.get());
  ev.parent = r ? r->event().id : -1;
  ev.name = call;
  ev.kind = EventKind::Sync;
  ev.thread = current_thread_id();
  ev.start_us = s->to_us(end - static_cast<int64_t>(wait_ms * 1e6));
  ev.end_us = s->to_us(end);
  const char* reason = audit::SyncReason::current();
  ev.sync_reason = reason ? reason : (what ? what : "");
  ev.sync_implicit = implicit;
  s->add_event(std::move(ev), nullptr);
}

void on_alloc(const void* p, size_t bytes, Device device) {
  std::shared_ptr<Session> s = current_session();
  if (!s || !s->profile_memory || !p || bytes == 0) return;
  Range* r = innermost_of(s.get());
  s->on_alloc(p, bytes, device, r ? r->event().id : -1);
  if (r) {
    (device.is_cuda() ? r->event().self_cuda_memory_usage : r->event().self_cpu_memory_usage) +=
        static_cast<int64_t>(bytes);
  }
  t_last = LastAllocation{s.get(), p, static_cast<int64_t>(bytes), device.is_cuda(),
                          r ? r->event().id : -1};
}

void claim_output(Range& r, const Tensor& out) {
  if (!t_last.p || t_last.session != r.session() || !out.defined()) return;
  if (out.unsafeGetTensorImpl()->storage()->data.get() != t_last.p) return;
  Range* parent = r.outer();
  while (parent && parent->session() != r.session()) parent = parent->outer();
  if ((parent ? parent->event().id : -1) != t_last.charged_to) return;
  auto self = [&](Range& x) -> int64_t& {
    return t_last.cuda ? x.event().self_cuda_memory_usage : x.event().self_cpu_memory_usage;
  };
  if (parent) self(*parent) -= t_last.bytes;
  self(r) += t_last.bytes;
  r.session()->recharge(t_last.p, r.event().id);
  t_last.p = nullptr;
}

void on_free(const void* p) {
  t_last.p = nullptr;
  std::shared_ptr<Session> s = current_session();
  if (!s || !s->profile_memory || !p) return;
  Range* r = innermost_of(s.get());
  int64_t bytes = 0;
  Device device(kCPU);
  if (!s->on_free(p, r ? r->event().id : -1, &bytes, &device) || !r) return;
  (device.is_cuda() ? r->event().self_cuda_memory_usage : r->event().self_cpu_memory_usage) -=
      bytes;
}

namespace {

class ProfilerListener final : public audit::Listener {
 public:
  void on_copy(audit::CopyDirection direction, size_t bytes, bool pinned, bool blocking) override {
    detail::on_copy(direction, bytes, pinned, blocking);
  }
  void on_kernel_launch() override { detail::on_kernel_launch(); }
  void on_sync(bool implicit, double wait_ms, const char* call, const char* what) override {
    detail::on_sync(implicit, wait_ms, call, what);
  }
  void on_alloc(const void* p, size_t bytes, Device device) override {
    detail::on_alloc(p, bytes, device);
  }
  void on_free(const void* p) override { detail::on_free(p); }
  Backend& wrap_backend(Backend& b) override { return detail::wrap_backend(b); }
  void* node_begin(const autograd::Node& node) override { return begin_node_range(node); }
  void node_end(void* token) override { end_node_range(token); }
};

// Constant-initialised and trivially destroyed: valid for any call that loaded it, at any time.
constinit ProfilerListener g_profiler_listener;

}  // namespace

audit::Listener* listener() {
  return &g_profiler_listener;
}

}  // namespace ember::profiler::detail
