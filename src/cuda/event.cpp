// torch.cuda.Event: record on a stream, query, synchronize, elapsed_time, wait.
#include <chrono>
#include <utility>

#include "core/device_audit.h"
#include "cuda/cuda_internal.h"

namespace ember::cuda {
namespace {
cudaEvent_t ev(void* e) {
  return static_cast<cudaEvent_t>(e);
}
}  // namespace

Event::Event(bool enable_timing, bool blocking)
    : enable_timing_(enable_timing), blocking_(blocking) {}

Event::~Event() {
  if (event_) {
    DeviceGuard guard(device_);
    (void)cudaEventDestroy(ev(event_));
  }
}

Event::Event(Event&& o) noexcept
    : event_(std::exchange(o.event_, nullptr)),
      device_(o.device_),
      enable_timing_(o.enable_timing_),
      blocking_(o.blocking_) {}

Event& Event::operator=(Event&& o) noexcept {
  std::swap(event_, o.event_);
  std::swap(device_, o.device_);
  std::swap(enable_timing_, o.enable_timing_);
  std::swap(blocking_, o.blocking_);
  return *this;
}

void Event::record() {
  detail::require_available("Event::record");
  record(current_stream());
}

void Event::record(const Stream& stream) {
  detail::require_available("Event::record");
  DeviceGuard guard(stream.device_index());
  if (!event_) {
    unsigned flags = (enable_timing_ ? cudaEventDefault : cudaEventDisableTiming) |
                     (blocking_ ? cudaEventBlockingSync : 0u);
    cudaEvent_t e = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
    event_ = e;
    device_ = stream.device_index();
  }
  EMBER_CHECK(device_ == stream.device_index(), DeviceError, "Event was created on cuda:", device_,
              " and cannot be recorded on a stream of ", stream.device());
  EMBER_CUDA_CHECK(cudaEventRecord(ev(event_), static_cast<cudaStream_t>(stream.stream())));
}

bool Event::query() const {
  if (!event_) return true;
  cudaError_t err = cudaEventQuery(ev(event_));
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err);
  return false;
}

void Event::synchronize() const {
  if (!event_) return;
  const auto t0 = std::chrono::steady_clock::now();
  EMBER_CUDA_CHECK(cudaEventSynchronize(ev(event_)));
  audit::record_sync(
      /*implicit=*/false,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
      "cudaEventSynchronize");
}

float Event::elapsed_time(const Event& end) const {
  detail::require_available("Event::elapsed_time");
  EMBER_CHECK(enable_timing_ && end.enable_timing_, ValueError,
              "elapsed_time: both events must be created with enable_timing=true");
  EMBER_CHECK(event_ && end.event_, ValueError,
              "elapsed_time: both events must be recorded before calculating elapsed time");
  float ms = 0;
  EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, ev(event_), ev(end.event_)));
  return ms;
}

void Event::wait(const Stream& stream) const {
  detail::require_available("Event::wait");
  if (!event_) return;
  DeviceGuard guard(stream.device_index());
  EMBER_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream.stream()), ev(event_), 0));
}

}  // namespace ember::cuda
