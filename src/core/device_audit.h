#pragma once
// What the backends report to the transfer audit, the sync debug mode and the profiler
// (ember::cuda::TransferAudit, set_sync_debug_mode, ember::profiler::profile): copies between
// host and device, host syncs, kernel launches, ops run on the CPU, tensor memory. Each hook
// costs one relaxed load when no audit or profile is open (a profile counts as one).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ember/cuda.h"
#include "ember/device.h"
#include "ember/macros.h"

namespace ember::audit {

EMBER_API extern std::atomic<int> g_open_audits;
inline bool active() {
  return g_open_audits.load(std::memory_order_relaxed) > 0;
}

enum class CopyDirection { HostToDevice, DeviceToHost, DeviceToDevice };
EMBER_API void record_copy(CopyDirection d, size_t bytes, bool pinned, bool blocking);
EMBER_API void record_kernel_launch();
// Counted only on threads that opened an audit (data-loading threads work on the CPU by design).
EMBER_API void record_cpu_op();
void audit_thread_enter();
void audit_thread_leave();
// The located events of ember::cuda::TransferAudit (cuda::set_audit_location_hook): a
// TransferAudit opens and closes a window on them; events are kept while one is open.
int64_t transfer_audit_open();  // the index its first event will have
void transfer_audit_close();    // the last one closing drops the events
std::vector<cuda::TransferEvent> transfer_events_since(int64_t first);
// A host wait for the device: implicit ones (inside an op) or the user's own synchronize().
// `call` is the CUDA call that waited, `what` the operation (as for before_implicit_sync).
EMBER_API void record_sync(bool implicit, double wait_ms,
                           const char* call = "cudaStreamSynchronize", const char* what = nullptr);
// A tensor's storage allocated (make_empty) or freed (~StorageImpl), for the profiler's memory
// events; callers check active() first, so that nothing but the load is paid when nobody listens.
EMBER_API void record_alloc_slow(const void* p, size_t bytes, Device device);
EMBER_API void record_free_slow(const void* p);

// Why the current thread is about to wait, for the sync debug mode's message ("item()",
// "printing a tensor"); the innermost reason wins.
class EMBER_API SyncReason {
 public:
  explicit SyncReason(const char* why);
  ~SyncReason();
  static const char* current();  // nullptr when none is set

 private:
  const char* previous_;
};

// Called right before an implicit host sync: warns (with a short trace) or throws, as the sync
// debug mode says. `what` names the operation ("a blocking device-to-host copy of 4 bytes").
EMBER_API void before_implicit_sync(const char* what);
// 0 default, 1 warn, 2 error (ember::cuda::set_sync_debug_mode).
int sync_mode();
void set_sync_mode(int mode);

}  // namespace ember::audit
