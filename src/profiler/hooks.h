#pragma once
// What the backends' audit hooks (core/device_audit.h) pass on to a recording profile: copies,
// kernel launches, host syncs, and tensor memory; the profiler's listener (core/listener.h)
// forwards them here. Called only while enabled().
#include <cstddef>

#include "core/device_audit.h"
#include "core/listener.h"
#include "ember/device.h"
#include "ember/tensor.h"

namespace ember::profiler::detail {

void on_copy(audit::CopyDirection direction, size_t bytes, bool pinned, bool blocking);
void on_kernel_launch();
// `call` names the CUDA call ("cudaStreamSynchronize"), `what` why it happened, when known.
void on_sync(bool implicit, double wait_ms, const char* call, const char* what);
void on_alloc(const void* p, size_t bytes, Device device);
void on_free(const void* p);

// While enabled(): the backend wrapper that records every call as an op
// (profiled_backend.cpp); else `b`.
Backend& wrap_backend(Backend& b);

// The profiler's listener: attached while enabled() (session.cpp), it forwards to the above.
audit::Listener* listener();

class Range;
// Front ends allocate an op's output, then call the backend: when `out` was the last allocation
// of this thread, charged to the op's enclosing range, it is charged to op `r` instead (PyTorch
// charges memory to the op that made it).
void claim_output(Range& r, const Tensor& out);

}  // namespace ember::profiler::detail
