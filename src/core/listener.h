#pragma once
// The listener a layer above core attaches to watch core, the backends and autograd at work, as
// c10's RecordFunction callbacks let PyTorch's profiler watch ATen: src/profiler attaches one
// while a profile records or an emit_nvtx scope is open, and detaches it after. Every call site
// pays one relaxed load when none is attached; core never includes the profiler.
#include <atomic>
#include <cstddef>

#include "core/device_audit.h"
#include "ember/device.h"
#include "ember/macros.h"

namespace ember {

class Backend;
namespace autograd {
class Node;
}

namespace audit {

class Listener {
 public:
  // The audit's events (device_audit.h), after its counters; called only while audit::active().
  virtual void on_copy(CopyDirection direction, size_t bytes, bool pinned, bool blocking) = 0;
  virtual void on_kernel_launch() = 0;
  // `call` names the CUDA call ("cudaStreamSynchronize"), `what` why it happened, when known.
  virtual void on_sync(bool implicit, double wait_ms, const char* call, const char* what) = 0;
  virtual void on_alloc(const void* p, size_t bytes, Device device) = 0;
  virtual void on_free(const void* p) = 0;
  // What backend_for() hands out instead of `b` (a wrapper that records each call), or `b`.
  virtual Backend& wrap_backend(Backend& b) = 0;
  // Around one backward node's apply(): begin's result is passed to end.
  virtual void* node_begin(const autograd::Node& node) = 0;
  virtual void node_end(void* token) = 0;

 protected:
  ~Listener() = default;
};

// The attached listener (one at a time), or null. The listener must outlive every call that
// may have loaded it: src/profiler's is a static object.
EMBER_API extern std::atomic<Listener*> g_listener;
inline Listener* listener() {
  return g_listener.load(std::memory_order_relaxed);
}
EMBER_API void attach_listener(Listener* l);  // null detaches

// A backward node's run, as the attached listener wants to see it (the autograd engine).
class NodeScope {
 public:
  explicit NodeScope(const autograd::Node& node) {
    if (Listener* l = listener()) {
      listener_ = l;
      token_ = l->node_begin(node);
    }
  }
  ~NodeScope() {
    if (listener_) listener_->node_end(token_);
  }
  NodeScope(const NodeScope&) = delete;
  NodeScope& operator=(const NodeScope&) = delete;

 private:
  Listener* listener_ = nullptr;  // the one that began, even if it detached since
  void* token_ = nullptr;
};

}  // namespace audit
}  // namespace ember
