// The counters behind ember::cuda::TransferAudit and the sync debug mode. Counters are global
// (every thread's work counts, as a GPU's would); an audit reads their difference.
#include "core/device_audit.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "core/listener.h"
#include "core/transfer_counters.h"
#include "ember/cuda.h"
#include "ember/error.h"

namespace ember {
namespace audit {

std::atomic<int> g_open_audits{0};

namespace {
thread_local const char* tls_reason = nullptr;
thread_local int tls_audits_here = 0;
std::atomic<int> g_sync_mode{0};

// Located events (cuda::set_audit_location_hook), kept while a TransferAudit is open: g_events[i]
// is event number g_events_base + i.
constexpr size_t kMaxEvents = 100000;
std::atomic<cuda::AuditLocationHook> g_location_hook{nullptr};
std::atomic<int> g_transfer_audits{0};
std::mutex g_events_mu;
std::vector<cuda::TransferEvent> g_events;
int64_t g_events_base = 0;

// Asks the hook where the caller is, outside g_events_mu (the hook may wait for a language's
// lock, such as Python's GIL).
void note_event(const char* kind, int64_t bytes) {
  if (g_transfer_audits.load(std::memory_order_relaxed) == 0) return;
  const cuda::AuditLocationHook hook = g_location_hook.load(std::memory_order_acquire);
  if (!hook) return;
  cuda::TransferEvent e;
  e.kind = kind;
  e.bytes = bytes;
  try {
    e.location = hook();
  } catch (...) {
    e.location.assign(1, '?');  // not = "?": GCC 12 reports a false -Wrestrict on that
  }
  std::lock_guard<std::mutex> lock(g_events_mu);
  if (g_transfer_audits.load() > 0 && g_events.size() < kMaxEvents)
    g_events.push_back(std::move(e));
}

// "  at function (object+offset)" lines of the caller's stack, Ember's own frames and the C
// library's left out; the offset is what addr2line -e object takes when a name is missing
// (executables export their names only with -rdynamic).
std::string short_trace() {
  void* frames[24];
  const int n = backtrace(frames, 24);
  std::string out;
  int shown = 0;
  for (int i = 1; i < n && shown < 6; ++i) {
    Dl_info info{};
    if (!dladdr(frames[i], &info)) continue;
    const std::string object = info.dli_fname ? info.dli_fname : "?";
    if (object.find("libember") != std::string::npos || object.find("libc.so") != std::string::npos)
      continue;
    std::string name = "?";
    if (info.dli_sname) {
      int status = 0;
      char* d = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
      name = status == 0 && d ? d : info.dli_sname;
      std::free(d);
    }
    char where[64];
    std::snprintf(
        where, sizeof where, "+%#zx",
        static_cast<size_t>(static_cast<char*>(frames[i]) - static_cast<char*>(info.dli_fbase)));
    out += "\n  at " + name + " (" + object + where + ")";
    ++shown;
    if (name == "main") break;
  }
  return out;
}
}  // namespace

void record_copy(CopyDirection d, size_t bytes, bool pinned, bool blocking) {
  if (!active()) return;
  TransferCounters& c = counters();
  switch (d) {
    case CopyDirection::HostToDevice:
      (pinned ? c.h2d_pinned : c.h2d_pageable) += 1;
      c.h2d_bytes += static_cast<int64_t>(bytes);
      if (blocking) c.h2d_blocking += 1;
      break;
    case CopyDirection::DeviceToHost:
      (pinned ? c.d2h_pinned : c.d2h_pageable) += 1;
      c.d2h_bytes += static_cast<int64_t>(bytes);
      if (bytes <= 16) c.d2h_small += 1;
      break;
    case CopyDirection::DeviceToDevice:
      c.d2d += 1;
      break;
  }
  if (Listener* l = listener()) l->on_copy(d, bytes, pinned, blocking);
  note_event(d == CopyDirection::HostToDevice   ? "host->device copy"
             : d == CopyDirection::DeviceToHost ? "device->host copy"
                                                : "device->device copy",
             static_cast<int64_t>(bytes));
}

void record_kernel_launch() {
  if (!active()) return;
  counters().kernel_launches += 1;
  if (Listener* l = listener()) l->on_kernel_launch();
}
void record_cpu_op() {
  if (active() && tls_audits_here > 0) counters().cpu_ops += 1;
}
void audit_thread_enter() {
  ++tls_audits_here;
}
void audit_thread_leave() {
  --tls_audits_here;
}
void record_sync(bool implicit, double wait_ms, const char* call, const char* what) {
  if (!active()) return;
  TransferCounters& c = counters();
  (implicit ? c.implicit_syncs : c.explicit_syncs) += 1;
  c.sync_wait_us += static_cast<int64_t>(wait_ms * 1000.0);
  if (Listener* l = listener()) l->on_sync(implicit, wait_ms, call, what);
  note_event(implicit ? "implicit sync" : "explicit sync", 0);
}

int64_t transfer_audit_open() {
  std::lock_guard<std::mutex> lock(g_events_mu);
  g_transfer_audits.fetch_add(1);
  return g_events_base + static_cast<int64_t>(g_events.size());
}
void transfer_audit_close() {
  std::lock_guard<std::mutex> lock(g_events_mu);
  if (g_transfer_audits.fetch_sub(1) == 1) {
    g_events_base += static_cast<int64_t>(g_events.size());
    g_events.clear();
  }
}
std::vector<cuda::TransferEvent> transfer_events_since(int64_t first) {
  std::lock_guard<std::mutex> lock(g_events_mu);
  const int64_t skip = std::max<int64_t>(0, first - g_events_base);
  if (skip >= static_cast<int64_t>(g_events.size())) return {};
  return {g_events.begin() + skip, g_events.end()};
}
void record_alloc_slow(const void* p, size_t bytes, Device device) {
  if (Listener* l = listener()) l->on_alloc(p, bytes, device);
}
void record_free_slow(const void* p) {
  try {
    if (Listener* l = listener()) l->on_free(p);
  } catch (...) {
    // Called from a destructor: a lost memory event is better than terminate().
  }
}

SyncReason::SyncReason(const char* why) : previous_(tls_reason) {
  tls_reason = why;
}
SyncReason::~SyncReason() {
  tls_reason = previous_;
}
const char* SyncReason::current() {
  return tls_reason;
}

void before_implicit_sync(const char* what) {
  const int mode = g_sync_mode.load(std::memory_order_relaxed);
  if (mode == 0) return;
  std::string msg = "called a synchronizing CUDA operation: ";
  msg += tls_reason ? tls_reason : what;
  if (tls_reason) msg += std::string(" (") + what + ")";
  if (mode == 2) throw Error(msg);
  std::fprintf(stderr, "Ember warning: %s%s\n", msg.c_str(), short_trace().c_str());
}

int sync_mode() {
  return g_sync_mode.load();
}
void set_sync_mode(int mode) {
  g_sync_mode.store(mode);
}

}  // namespace audit

namespace cuda {

void set_sync_debug_mode(int mode) {
  EMBER_CHECK(mode >= 0 && mode <= 2, ValueError,
              "set_sync_debug_mode: expected 0 (default), 1 (warn) or 2 (error), got ", mode);
  audit::set_sync_mode(mode);
}
void set_sync_debug_mode(const std::string& mode) {
  if (mode == "default") return set_sync_debug_mode(0);
  if (mode == "warn") return set_sync_debug_mode(1);
  if (mode == "error") return set_sync_debug_mode(2);
  throw ValueError("set_sync_debug_mode: invalid value of debug_mode '" + mode +
                   "', expected one of 'default', 'warn', 'error'");
}
int get_sync_debug_mode() {
  return audit::sync_mode();
}
void set_audit_location_hook(AuditLocationHook hook) {
  audit::g_location_hook.store(hook, std::memory_order_release);
}

}  // namespace cuda
}  // namespace ember
