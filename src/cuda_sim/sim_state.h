#pragma once
// The simulator's internal state: devices (capacity, memory arena, streams, sticky error),
// streams (one worker thread each, running tasks in order) and events (a point in a stream).
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cuda_sim.h"

namespace cuda_sim {

struct Device;

// What a worker is doing, for fault reports ("kernel 'x' on cuda:1").
struct Activity {
  const char* what = nullptr;  // kernel name or "cudaMemcpyAsync" ...
  int device = -1;
};
// Null on host threads.
extern thread_local const Activity* tls_activity;

// A unit of stream work. `gates` are the devices whose memory it may touch.
struct Task {
  std::function<void()> run;
  std::vector<int> gates;
  const char* what = "";
};

class Stream {
 public:
  Stream(int device, unsigned flags, int priority);
  ~Stream();  // drains and joins
  // Queues `t`; returns its sequence number (1, 2, ...).
  uint64_t enqueue(Task t);
  bool reached(uint64_t seq);
  void wait(uint64_t seq);
  uint64_t last_enqueued();
  void drain() { wait(last_enqueued()); }

  const int device;
  const unsigned flags;
  const int priority;

 private:
  void loop();
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::pair<uint64_t, Task>> queue_;
  uint64_t enqueued_ = 0, completed_ = 0;
  bool stop_ = false;
  std::thread worker_;  // started on first enqueue
};

// A point in a stream's order: reached once the stream completed task `seq`.
struct Marker {
  Stream* stream = nullptr;
  uint64_t seq = 0;
  bool reached() const { return !stream || stream->reached(seq); }
  void wait() const {
    if (stream) stream->wait(seq);
  }
};

struct Event {
  int device = 0;
  unsigned flags = 0;
  std::mutex m;
  Marker marker;
  bool recorded = false;
  double time_ms = 0;  // when the marker task ran (timing events)
  uint64_t generation = 0;
};

struct Device {
  int index = 0;
  size_t capacity = 0;
  std::mutex m;  // memory state and stream list
  size_t used = 0;
  char* arena = nullptr;
  size_t arena_size = 0, bump = 0;
  std::map<uintptr_t, size_t> live;       // cudaMalloc'd ranges: start -> bytes (page multiple)
  std::map<uintptr_t, size_t> requested;  // start -> bytes asked for
  std::map<uintptr_t, size_t> holes;      // freed ranges (inaccessible until reused)
  std::map<uintptr_t, uintptr_t> cached_free;  // caching-allocator free blocks: start -> end
  int gate_count = 0;
  Stream* legacy = nullptr;
  std::vector<Stream*> streams;  // every stream of the device, legacy included
  std::map<const void*, int> max_dynamic_shared;
  // Sticky error: once a kernel faults, every call on this device returns it.
  cudaError_t sticky = cudaSuccess;
  std::string sticky_message;
};

// ---- devices (runtime.cpp) ----
int device_count();
Device* device(int index);  // nullptr when out of range
int current_device_index();
// cudaSuccess or the device's sticky error.
cudaError_t sticky_error(int device);
// Makes `err` sticky on `device` with a report, printed to stderr once.
void set_sticky(int device, cudaError_t err, const std::string& report);
// Records `err` for cudaGetLastError and returns it.
cudaError_t fail(cudaError_t err);
// nullptr -> the current device's legacy stream; checks the handle (nullptr when invalid).
Stream* resolve_stream(cudaStream_t s);
double now_ms();
// Waits for every stream of `d` (cudaDeviceSynchronize, cudaFree).
void drain_device(Device& d);

// ---- memory (memory.cpp) ----
void init_memory(Device& d);
// Opening a device's gate makes its live memory accessible; closed, any access faults (strict).
void open_gate(int device);
void close_gate(int device);
enum class MemoryKind {
  Pageable,
  Pinned,
  DeviceLive,
  DeviceFreed,
  DeviceCachedFree,
  DeviceUnmapped
};
struct PointerInfo {
  MemoryKind kind = MemoryKind::Pageable;
  int device = -1;
  uintptr_t base = 0;
  size_t size = 0;
};
PointerInfo classify(const void* p);
std::string describe(const PointerInfo& info, const void* p);
// The same into a buffer, without allocating (for the fault handler).
void describe_into(char* buf, size_t n, const PointerInfo& info, const void* p);
void* pinned_alloc(size_t n);
bool pinned_free(void* p);
bool is_pinned(const void* p);

// ---- kernels (kernel_engine.cpp) ----
// Runs every block of `k` on the calling worker; returns false with a report on a device fault.
bool run_kernel(const KernelLaunch& k, int device, std::string* report, cudaError_t* code);

}  // namespace cuda_sim
