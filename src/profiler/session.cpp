// The recording session: event storage, memory totals, and the GPU clock.
#include "profiler/session.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "core/device_audit.h"
#include "ember/error.h"
#include "profiler/hooks.h"

namespace ember::profiler::detail {

std::atomic<int> g_enabled{0};

namespace {
std::mutex g_session_mu;
std::shared_ptr<Session> g_session;
std::atomic<int> g_nvtx_scopes{0};
thread_local bool t_internal = false;
std::mutex g_enabled_mu;

// Every change of g_enabled goes through here: the listener is attached exactly while it is
// positive (the mutex keeps a late detach from undoing a newer attach).
void add_enabled(int delta) {
  std::lock_guard<std::mutex> lock(g_enabled_mu);
  const int now = g_enabled.fetch_add(delta) + delta;
  audit::attach_listener(now > 0 ? listener() : nullptr);
}
}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t current_thread_id() {
  static thread_local const int64_t tid = static_cast<int64_t>(::syscall(SYS_gettid));
  return tid;
}

Session::Session(const ProfileOptions& o)
    : cuda([&] {
        for (ProfilerActivity a : o.activities()) {
          if (a == ProfilerActivity::CUDA) return cuda::is_available();
        }
        return false;
      }()),
      record_shapes(o.record_shapes()),
      profile_memory(o.profile_memory()),
      start_ns(now_ns()) {}

void Session::ensure_anchor(int device) {
  std::lock_guard<std::mutex> lock(anchor_mu_);
  auto& slot = anchors_[device];
  if (slot) return;
  auto a = std::make_unique<Anchor>();
  InternalScope internal;
  // On an idle device the anchor event completes between its record and the end of waiting for
  // it; its host time is taken after the wait, so a GPU time can come out late by the wait's
  // wake-up, never before the host queued the work (a stream worker or driver slow to pick the
  // event up made ops start on the GPU before they were launched).
  cuda::synchronize(device);
  a->event.record(cuda::current_stream(device));
  a->event.synchronize();
  a->host_ns = now_ns();
  slot = std::move(a);
}

void Session::add_event(FunctionEvent ev, std::unique_ptr<GpuSpan> gpu) {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  events_.push_back(std::move(ev));
  if (gpu) spans_.emplace_back(events_.size() - 1, std::move(gpu));
}

void Session::add_first_step(const std::string& name, int64_t thread, int64_t end_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  FunctionEvent step;
  step.id = next_id();
  step.name = name;
  step.kind = EventKind::UserAnnotation;
  step.thread = thread;
  step.start_us = 0;
  step.end_us = to_us(end_ns);
  for (FunctionEvent& ev : events_) {
    if (ev.thread == thread && ev.parent == -1) ev.parent = step.id;
  }
  events_.push_back(std::move(step));
}

void Session::add_copy(CopyEvent c) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!finished_) copies_.push_back(std::move(c));
}

void Session::on_alloc(const void* p, size_t bytes, Device d, int64_t op) {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  const auto n = static_cast<int64_t>(bytes);
  live_.insert_or_assign(p, Block{n, d, memory_.size()});
  int64_t& total = totals_[d];
  total += n;
  memory_.push_back(MemoryEvent{to_us(now_ns()), d, n, total,
                                static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)),
                                current_thread_id(), op});
}

void Session::recharge(const void* p, int64_t to) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(p);
  if (it != live_.end()) memory_[it->second.event].op = to;
}

bool Session::on_free(const void* p, int64_t op, int64_t* bytes, Device* device) {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return false;
  auto it = live_.find(p);
  if (it == live_.end()) return false;  // allocated before the profile started
  const Block b = it->second;
  live_.erase(it);
  int64_t& total = totals_[b.device];
  total -= b.bytes;
  memory_.push_back(MemoryEvent{to_us(now_ns()), b.device, -b.bytes, total,
                                static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)),
                                current_thread_id(), op});
  *bytes = b.bytes;
  *device = b.device;
  return true;
}

void Session::finish() {
  std::vector<std::pair<size_t, std::unique_ptr<GpuSpan>>> spans;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return;
    finished_ = true;
    spans.swap(spans_);
  }
  std::lock_guard<std::mutex> anchor_lock(anchor_mu_);
  InternalScope internal;
  for (auto& [device, anchor] : anchors_) {
    try {
      cuda::synchronize(device);
    } catch (const Error&) {
      // A device with a sticky error keeps its ops' CPU ranges; their GPU times are unknown.
    }
  }
  for (auto& [index, span] : spans) {
    FunctionEvent& ev = events_[index];
    auto it = anchors_.find(span->stream.device_index());
    if (it == anchors_.end()) continue;
    try {
      const double from_anchor_ms = it->second->event.elapsed_time(span->start);
      const double duration_ms = span->start.elapsed_time(span->end);
      ev.has_cuda_time = true;
      ev.stream = span->stream.id();
      ev.cuda_start_us = to_us(it->second->host_ns) + from_anchor_ms * 1000.0;
      ev.cuda_end_us = ev.cuda_start_us + duration_ms * 1000.0;
    } catch (const Error&) {
      ev.has_cuda_time = false;
    }
  }
  // In start order, an enclosing range before what it encloses (as torch lists events).
  std::stable_sort(events_.begin(), events_.end(), [](const auto& a, const auto& b) {
    return a.start_us < b.start_us || (a.start_us == b.start_us && a.end_us > b.end_us);
  });
}

std::shared_ptr<Session> current_session() {
  std::lock_guard<std::mutex> lock(g_session_mu);
  return g_session;
}

void begin_session(std::shared_ptr<Session> s) {
  std::lock_guard<std::mutex> lock(g_session_mu);
  EMBER_CHECK(!g_session, Error,
              "Profiler is already enabled: stop the running ember::profiler::profile before "
              "starting another");
  g_session = std::move(s);
  add_enabled(1);
  audit::g_open_audits.fetch_add(1);  // the backends' hooks report to us from now on
}

void end_session(const Session* s) {
  std::lock_guard<std::mutex> lock(g_session_mu);
  if (!g_session || g_session.get() != s) return;
  g_session.reset();
  add_enabled(-1);
  audit::g_open_audits.fetch_sub(1);
}

bool nvtx_on(const Session* s) {
  return g_nvtx_scopes.load(std::memory_order_relaxed) > 0 || (s && s->cuda);
}

void add_nvtx_scope(int delta) {
  g_nvtx_scopes.fetch_add(delta);
  add_enabled(delta);
  audit::g_open_audits.fetch_add(delta);
}

InternalScope::InternalScope() : previous_(t_internal) {
  t_internal = true;
}
InternalScope::~InternalScope() {
  t_internal = previous_;
}
bool InternalScope::active() {
  return t_internal;
}

}  // namespace ember::profiler::detail
