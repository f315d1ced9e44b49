// Streams and events. Each stream has its own worker thread that runs the stream's tasks in
// order, so work on different streams really overlaps and a missing wait shows up as a wrong
// result; an event is a sequence number in one stream.
#include <algorithm>
#include <atomic>
#include <set>

#include "sim_state.h"

namespace cuda_sim {

thread_local const Activity* tls_activity = nullptr;

Stream::Stream(int dev, unsigned f, int prio) : device(dev), flags(f), priority(prio) {}

Stream::~Stream() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

uint64_t Stream::enqueue(Task t) {
  std::lock_guard<std::mutex> lock(m_);
  if (!worker_.joinable()) worker_ = std::thread([this] { loop(); });
  queue_.emplace_back(++enqueued_, std::move(t));
  cv_.notify_all();
  return enqueued_;
}

bool Stream::reached(uint64_t seq) {
  std::lock_guard<std::mutex> lock(m_);
  return completed_ >= seq;
}

namespace {
std::atomic<uint64_t> g_host_waits{0};
}  // namespace

uint64_t host_waits() {
  return g_host_waits.load();
}

void Stream::wait(uint64_t seq) {
  if (!tls_activity) g_host_waits.fetch_add(1, std::memory_order_relaxed);  // a host thread
  std::unique_lock<std::mutex> lock(m_);
  cv_.wait(lock, [&] { return completed_ >= seq; });
}

uint64_t Stream::last_enqueued() {
  std::lock_guard<std::mutex> lock(m_);
  return enqueued_;
}

void Stream::loop() {
  // Gates stay open from one task to the next queued one that needs them: opening and closing
  // a gate re-protects every live page of the device, which was most of the simulator's time.
  // A gate closes as soon as no queued task needs it, before the host can see the task complete.
  std::vector<int> held;
  auto holds = [](const std::vector<int>& gates, int g) {
    return std::find(gates.begin(), gates.end(), g) != gates.end();
  };
  for (;;) {
    std::pair<uint64_t, Task> item;
    {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    Task& t = item.second;
    Activity activity{t.what, device};
    tls_activity = &activity;
    for (int g : t.gates) {
      if (!holds(held, g)) {
        open_gate(g);
        held.push_back(g);
      }
    }
    t.run();
    std::vector<int> next_gates;
    {
      std::lock_guard<std::mutex> lock(m_);
      if (!queue_.empty()) next_gates = queue_.front().second.gates;
    }
    for (auto it = held.begin(); it != held.end();) {
      if (holds(next_gates, *it)) {
        ++it;
      } else {
        close_gate(*it);
        it = held.erase(it);
      }
    }
    tls_activity = nullptr;
    {
      std::lock_guard<std::mutex> lock(m_);
      completed_ = item.first;
    }
    cv_.notify_all();
  }
}

namespace {

std::mutex g_handles_mutex;
std::set<const void*>& stream_handles() {
  static auto* s = new std::set<const void*>;
  return *s;
}
std::set<const void*>& event_handles() {
  static auto* s = new std::set<const void*>;
  return *s;
}

Event* resolve_event(cudaEvent_t e) {
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  return event_handles().count(e) ? reinterpret_cast<Event*>(e) : nullptr;
}

cudaError_t create_stream(cudaStream_t* out, unsigned flags, int priority) {
  if (!out) return fail(cudaErrorInvalidValue);
  const int dev = current_device_index();
  if (dev < 0) return fail(cudaErrorNoDevice);
  if (cudaError_t e = sticky_error(dev)) return fail(e);
  auto* s = new Stream(dev, flags, std::clamp(priority, -5, 0));
  Device* d = device(dev);
  {
    std::lock_guard<std::mutex> lock(d->m);
    d->streams.push_back(s);
  }
  {
    std::lock_guard<std::mutex> lock(g_handles_mutex);
    stream_handles().insert(s);
  }
  *out = reinterpret_cast<cudaStream_t>(s);
  return cudaSuccess;
}

}  // namespace

Stream* resolve_stream(cudaStream_t s) {
  if (!s) {
    Device* d = device(current_device_index());
    return d ? d->legacy : nullptr;
  }
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  return stream_handles().count(s) ? reinterpret_cast<Stream*>(s) : nullptr;
}

}  // namespace cuda_sim

using namespace cuda_sim;

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  return create_stream(stream, cudaStreamDefault, 0);
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags) {
  return create_stream(stream, flags, 0);
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned flags, int priority) {
  return create_stream(stream, flags, priority);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  Stream* s = stream ? resolve_stream(stream) : nullptr;
  if (!s) return fail(cudaErrorInvalidResourceHandle);
  {
    std::lock_guard<std::mutex> lock(g_handles_mutex);
    stream_handles().erase(s);
  }
  Device* d = device(s->device);
  {
    std::lock_guard<std::mutex> lock(d->m);
    d->streams.erase(std::find(d->streams.begin(), d->streams.end(), s));
  }
  delete s;  // CUDA lets queued work finish first; the destructor drains
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  Stream* s = resolve_stream(stream);
  if (!s) return fail(cudaErrorInvalidResourceHandle);
  s->drain();
  if (cudaError_t e = sticky_error(s->device)) return fail(e);
  return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  Stream* s = resolve_stream(stream);
  if (!s) return fail(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = sticky_error(s->device)) return fail(e);
  return s->reached(s->last_enqueued()) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) {
  Stream* s = resolve_stream(stream);
  if (!s || !device) return fail(s ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle);
  *device = s->device;
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned) {
  Stream* s = resolve_stream(stream);
  Event* e = resolve_event(event);
  if (!s || !e) return fail(cudaErrorInvalidResourceHandle);
  Marker m;
  {
    std::lock_guard<std::mutex> lock(e->m);
    m = e->marker;  // the record as of now; a later re-record does not matter
  }
  if (!m.stream || m.stream == s) return cudaSuccess;
  s->enqueue(Task{[m] { m.wait(); }, {}, "cudaStreamWaitEvent"});
  return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags) {
  if (!event) return fail(cudaErrorInvalidValue);
  const int dev = current_device_index();
  if (dev < 0) return fail(cudaErrorNoDevice);
  auto* e = new Event;
  e->device = dev;
  e->flags = flags;
  {
    std::lock_guard<std::mutex> lock(g_handles_mutex);
    event_handles().insert(e);
  }
  *event = reinterpret_cast<cudaEvent_t>(e);
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  Event* e = resolve_event(event);
  if (!e) return fail(cudaErrorInvalidResourceHandle);
  {
    std::lock_guard<std::mutex> lock(g_handles_mutex);
    event_handles().erase(e);
  }
  // A marker task queued by cudaEventRecord may still point at it: keep the memory (events are
  // few and small), but the handle is gone.
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  Event* e = resolve_event(event);
  Stream* s = resolve_stream(stream);
  if (!e || !s) return fail(cudaErrorInvalidResourceHandle);
  // CUDA: recording fails when the event and the stream belong to different devices.
  if (e->device != s->device) return fail(cudaErrorInvalidResourceHandle);
  if (cudaError_t err = sticky_error(s->device)) return fail(err);
  std::lock_guard<std::mutex> lock(e->m);
  const uint64_t generation = ++e->generation;
  const uint64_t seq = s->enqueue(Task{[e, generation] {
                                         std::lock_guard<std::mutex> l(e->m);
                                         if (e->generation == generation) e->time_ms = now_ms();
                                       },
                                       {},
                                       "cudaEventRecord"});
  e->marker = Marker{s, seq};
  e->recorded = true;
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  Event* e = resolve_event(event);
  if (!e) return fail(cudaErrorInvalidResourceHandle);
  Marker m;
  {
    std::lock_guard<std::mutex> lock(e->m);
    m = e->marker;
  }
  if (cudaError_t err = sticky_error(e->device)) return fail(err);
  return m.reached() ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  Event* e = resolve_event(event);
  if (!e) return fail(cudaErrorInvalidResourceHandle);
  Marker m;
  {
    std::lock_guard<std::mutex> lock(e->m);
    m = e->marker;
  }
  m.wait();
  if (cudaError_t err = sticky_error(e->device)) return fail(err);
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  Event* a = resolve_event(start);
  Event* b = resolve_event(end);
  if (!ms) return fail(cudaErrorInvalidValue);
  if (!a || !b) return fail(cudaErrorInvalidResourceHandle);
  if ((a->flags | b->flags) & cudaEventDisableTiming) return fail(cudaErrorInvalidResourceHandle);
  if (a->device != b->device) return fail(cudaErrorInvalidValue);
  if (a == b) {
    *ms = 0;
    return a->recorded ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
  }
  std::scoped_lock lock(a->m, b->m);
  if (!a->recorded || !b->recorded) return fail(cudaErrorInvalidResourceHandle);
  if (!a->marker.reached() || !b->marker.reached()) return fail(cudaErrorNotReady);
  *ms = static_cast<float>(b->time_ms - a->time_ms);
  return cudaSuccess;
}
