#pragma once
// The recording behind ember::profiler::profile: the finished ranges, memory and copy events of
// every thread, and the CUDA events that time ops on the GPU. One session records at a time; the
// global pointer to it is what ranges and hooks look up (only after enabled() says to).
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/cuda.h"
#include "ember/profiler.h"

namespace ember::profiler::detail {

// Orders devices for maps keyed by them (cpu, cuda:0, cuda:1, ...).
struct DeviceLess {
  bool operator()(const Device& a, const Device& b) const {
    return std::make_pair(static_cast<int>(a.type()), static_cast<int>(a.index())) <
           std::make_pair(static_cast<int>(b.type()), static_cast<int>(b.index()));
  }
};

int64_t now_ns();             // the steady clock every event uses
int64_t current_thread_id();  // the OS thread id (what Perfetto shows)

// CUDA events around one op on its stream.
struct GpuSpan {
  explicit GpuSpan(cuda::Stream s) : stream(s), start(true), end(true) {}
  cuda::Stream stream;
  cuda::Event start, end;
};

class Session {
 public:
  explicit Session(const ProfileOptions& options);
  const bool cuda;  // the CUDA activity, when a CUDA device is available
  const bool record_shapes;
  const bool profile_memory;
  const int64_t start_ns;

  int64_t next_id() { return next_id_.fetch_add(1, std::memory_order_relaxed); }
  double to_us(int64_t ns) const { return static_cast<double>(ns - start_ns) / 1000.0; }

  // Makes sure device's GPU clock is tied to the host clock (once per device: a sync and an
  // anchor event recorded on the idle device).
  void ensure_anchor(int device);
  void add_event(FunctionEvent ev, std::unique_ptr<GpuSpan> gpu);
  void add_copy(CopyEvent c);
  // A range from the session's start to end_ns on `thread`, made afterwards: the events that
  // thread recorded at top level become its children (profile::step()'s first step).
  void add_first_step(const std::string& name, int64_t thread, int64_t end_ns);
  // Memory of a tensor made (or freed) during the session, charged to range `op`.
  void on_alloc(const void* p, size_t bytes, Device d, int64_t op);
  // Charges the allocation of `p` to op `to` instead (its MemoryEvent's op).
  void recharge(const void* p, int64_t to);
  // False (and no event) for memory allocated before the session started.
  bool on_free(const void* p, int64_t op, int64_t* bytes, Device* device);

  // Ends the recording: later events are dropped; GPU times are read from their events (after
  // waiting for each device that has any). Idempotent.
  void finish();

  const std::vector<FunctionEvent>& events() const { return events_; }
  const std::vector<MemoryEvent>& memory() const { return memory_; }
  const std::vector<CopyEvent>& copies() const { return copies_; }

 private:
  struct Anchor {
    cuda::Event event{true};
    int64_t host_ns = 0;
  };
  std::atomic<int64_t> next_id_{0};
  std::mutex mu_;
  bool finished_ = false;
  std::vector<FunctionEvent> events_;
  std::vector<std::pair<size_t, std::unique_ptr<GpuSpan>>> spans_;  // index into events_
  std::vector<MemoryEvent> memory_;
  std::vector<CopyEvent> copies_;
  struct Block {
    int64_t bytes;
    Device device;
    size_t event;  // its allocation in memory_
  };
  std::unordered_map<const void*, Block> live_;
  std::map<Device, int64_t, DeviceLess> totals_;
  std::map<int, std::unique_ptr<Anchor>> anchors_;
  std::mutex anchor_mu_;
};

// Set while a profile records or an emit_nvtx scope is open: what ranges and hooks check first.
extern std::atomic<int> g_enabled;
inline bool enabled() {
  return g_enabled.load(std::memory_order_relaxed) > 0;
}
// The recording session (null when only NVTX is on).
std::shared_ptr<Session> current_session();
// Starts recording into `s` (Error when one already records) / stops.
void begin_session(std::shared_ptr<Session> s);
void end_session(const Session* s);
// NVTX ranges are emitted: an emit_nvtx scope is open, or `s` records the CUDA activity.
bool nvtx_on(const Session* s);
void add_nvtx_scope(int delta);

// Set on a thread while the profiler itself waits for a device, so its own syncs are not events.
class InternalScope {
 public:
  InternalScope();
  ~InternalScope();
  static bool active();

 private:
  bool previous_;
};

}  // namespace ember::profiler::detail
