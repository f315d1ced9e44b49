#pragma once
// ember::cuda: the Python torch.cuda API in C++. In a build without CUDA, or on a machine without
// a driver or GPU, is_available() is false and device_count() is 0; nothing here aborts.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ember/allocator.h"
#include "ember/device.h"
#include "ember/macros.h"
#include "ember/tensor.h"

namespace ember::cuda {

struct DeviceProperties {
  std::string name;
  size_t total_memory = 0;
  int multi_processor_count = 0;
  int major = 0;
  int minor = 0;
};

EMBER_API bool is_available();
// True when the devices are simulated (a -DEMBER_CUDA=SIM build, see docs/cuda.md): the CUDA
// backend runs for real, on the host, with the simulator's checks; timings mean nothing.
EMBER_API bool is_simulated();
EMBER_API int device_count();
// Why is_available() is false: "Ember was built without CUDA", "no NVIDIA driver", "no CUDA
// device"; empty when CUDA is available.
EMBER_API std::string unavailable_reason();
// libtorch's torch::cuda::cudnn_is_available(): still false here. Whether the CUDA convolutions go
// through cuDNN is backends::cudnn::is_available() (ember/backends.h); this inline answer is to
// follow it at the next change of this header's code (docs/cuda.md says why it waits).
inline bool cudnn_is_available() {
  return false;
}
EMBER_API std::string get_device_name(int device = -1);
EMBER_API DeviceProperties get_device_properties(int device = -1);
EMBER_API int current_device();
EMBER_API void set_device(int device);
EMBER_API void synchronize(int device = -1);
EMBER_API std::pair<size_t, size_t> mem_get_info(int device = -1);
EMBER_API void manual_seed(uint64_t seed);
EMBER_API void manual_seed_all(uint64_t seed);

// Caching allocator statistics and control (torch.cuda.memory_*).
EMBER_API void empty_cache();
EMBER_API size_t memory_allocated(int device = -1);
EMBER_API size_t max_memory_allocated(int device = -1);
EMBER_API size_t memory_reserved(int device = -1);
EMBER_API size_t max_memory_reserved(int device = -1);
EMBER_API void reset_peak_memory_stats(int device = -1);
EMBER_API std::map<std::string, int64_t> memory_stats(int device = -1);
EMBER_API std::string memory_summary(int device = -1, bool abbreviated = false);
EMBER_API void set_per_process_memory_fraction(double fraction, int device = -1);

// Throws DeviceError saying why when `device` cannot be used (no CUDA, ordinal out of range).
EMBER_API void check_device(Device device);

// ---- streams (c10::cuda::CUDAStream / torch.cuda.Stream) ----
// A value handle: streams come from a per-device pool (or are the default stream) and live as
// long as the process, so copies of a Stream never dangle.
class EMBER_API Stream {
 public:
  Stream(Device device, void* handle, int priority) noexcept
      : device_(device), handle_(handle), priority_(priority) {}
  // A stream from the pool of `device` (-1: current device). priority: 0 is normal, negative
  // values are higher priority (clamped to the device's range), as in torch.cuda.Stream.
  static Stream create(int priority = 0, int device = -1);

  Device device() const noexcept { return device_; }
  DeviceIndex device_index() const noexcept { return device_.index(); }
  // The cudaStream_t (nullptr for the default stream).
  void* stream() const noexcept { return handle_; }
  int64_t id() const noexcept { return static_cast<int64_t>(reinterpret_cast<uintptr_t>(handle_)); }
  int priority() const noexcept { return priority_; }
  // True when all work queued on the stream has finished.
  bool query() const;
  void synchronize() const;
  StreamRef ref() const { return StreamRef{device_, handle_, id()}; }
  operator StreamRef() const { return ref(); }
  bool operator==(const Stream& o) const noexcept {
    return device_ == o.device_ && handle_ == o.handle_;
  }
  bool operator!=(const Stream& o) const noexcept { return !(*this == o); }

 private:
  Device device_;
  void* handle_;
  int priority_;
};

// libtorch's c10::cuda::getStreamFromPool.
EMBER_API Stream getStreamFromPool(bool isHighPriority = false, int device = -1);
EMBER_API Stream getDefaultCUDAStream(int device = -1);
EMBER_API Stream getCurrentCUDAStream(int device = -1);
// The stream kernels and copies on `device` are queued on (per thread; default stream at first).
EMBER_API Stream current_stream(int device = -1);
EMBER_API Stream default_stream(int device = -1);
EMBER_API void set_current_stream(const Stream& stream);
// {least priority, greatest priority} as cudaDeviceGetStreamPriorityRange reports them.
EMBER_API std::pair<int, int> stream_priority_range();

// Makes `stream` current (and its device current) for the guard's lifetime.
class EMBER_API StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;
  Stream original_stream() const { return original_stream_; }
  Stream current_stream() const { return current_; }

 private:
  Stream original_stream_;
  Stream current_;
  int original_device_;
};

// Makes `device` current for the guard's lifetime.
class EMBER_API DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  explicit DeviceGuard(Device device) : DeviceGuard(static_cast<int>(device.index())) {}
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  int original_device() const { return original_; }

 private:
  int original_;
};

// torch.cuda.Event. Created lazily on the device of the first record().
class EMBER_API Event {
 public:
  explicit Event(bool enable_timing = false, bool blocking = false);
  ~Event();
  Event(Event&& o) noexcept;
  Event& operator=(Event&& o) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record();  // on the current stream
  void record(const Stream& stream);
  // True when the recorded work has finished (or nothing was recorded).
  bool query() const;
  void synchronize() const;
  // Milliseconds between this event and `end`; both need enable_timing and a completed record.
  float elapsed_time(const Event& end) const;
  // Work queued on `stream` after this call waits for the event.
  void wait(const Stream& stream) const;
  void block(const Stream& stream) const { wait(stream); }
  bool isCreated() const { return event_ != nullptr; }
  void* event() const { return event_; }

 private:
  void* event_ = nullptr;
  int device_ = -1;
  bool enable_timing_;
  bool blocking_;
};

// torch.backends.cuda.matmul.allow_tf32: float32 matmuls may use TF32 tensor cores (off by
// default, as in PyTorch since 1.12).
EMBER_API bool matmul_allow_tf32();
EMBER_API void set_matmul_allow_tf32(bool allow);

// What Tensor::record_stream does: the caching allocator will not reuse `data` until the work
// queued on `stream` so far has finished. CPU memory is ignored.
EMBER_API void record_stream(const DataPtr& data, const StreamRef& stream);
// Caching pinned-memory allocator statistics and control.
EMBER_API size_t host_memory_allocated();
EMBER_API size_t host_memory_reserved();
EMBER_API void host_empty_cache();

// torch.cuda.set_sync_debug_mode: "default" (0), "warn" (1) or "error" (2). In warn or error
// mode every implicit host synchronisation (item(), a blocking copy to or from the device,
// printing a CUDA tensor) prints a warning with a short trace, or throws ember::Error.
// Explicit synchronize() calls are never reported.
EMBER_API void set_sync_debug_mode(const std::string& mode);
EMBER_API void set_sync_debug_mode(int mode);
EMBER_API int get_sync_debug_mode();

// What a TransferAudit counted (totals since it was opened).
struct TransferStats {
  int64_t steps = 0;
  int64_t h2d_pageable = 0, h2d_pinned = 0, h2d_blocking = 0, h2d_bytes = 0;
  int64_t d2h_pageable = 0, d2h_pinned = 0, d2h_small = 0, d2h_bytes = 0;
  int64_t d2d = 0;
  int64_t implicit_syncs = 0, explicit_syncs = 0;
  double sync_wait_ms = 0;
  int64_t kernel_launches = 0, cpu_ops = 0;
};

// One copy between host and device or one host sync seen by an open TransferAudit, with where
// it came from. Recorded only while a location hook is set (set_audit_location_hook).
struct TransferEvent {
  std::string kind;      // "host->device copy", "device->host copy", "device->device copy",
                         // "implicit sync", "explicit sync"
  std::string location;  // what the hook returned (the Python bindings: "file.py:12"); may be ""
  int64_t bytes = 0;     // for copies
};

// Asked, while a TransferAudit is open, for the location of each copy and sync it counts, on the
// thread that copies or waits. A front end in another language sets one: the Python bindings
// return the innermost Python frame outside the ember package as "file:line". nullptr (the
// default) records no events and keeps each count at its cost without a hook.
using AuditLocationHook = std::string (*)();
EMBER_API void set_audit_location_hook(AuditLocationHook hook);

// The "training became slower after .cuda()" doctor. Open one around a few training steps and
// call step() at the end of each; report() prints per-step counts of copies (direction, bytes,
// pageable or pinned), host syncs and the time spent waiting, kernel launches and ops that ran on
// the CPU, followed by findings with their fix, e.g. pageable host->device copies -> pin_memory
// and non_blocking; loss.item() every step -> log every N steps. Works on CPU-only builds too
// (then it counts CPU ops only).
class EMBER_API TransferAudit {
 public:
  TransferAudit();
  ~TransferAudit();
  TransferAudit(const TransferAudit&) = delete;
  TransferAudit& operator=(const TransferAudit&) = delete;
  void step();
  TransferStats stats() const;
  std::vector<std::string> findings() const;
  std::string report() const;
  // The copies and syncs since the audit was opened, each with its location (empty unless a
  // location hook is set; at most 100000 are kept). report() counts them by location.
  std::vector<TransferEvent> events() const;

 private:
  TransferStats start_;
  int64_t steps_ = 0;
  int64_t first_event_ = 0;
};

}  // namespace ember::cuda
