// Streams: a default stream per device, pools of non-blocking streams (normal and high
// priority, handed out round-robin as c10's getStreamFromPool does), a thread-local current
// stream per device, and the stream and device guards.
#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "core/device_audit.h"
#include "cuda/cuda_internal.h"

namespace ember::cuda {
namespace {

constexpr int kPoolSize = 32;

struct DevicePools {
  std::once_flag once;
  int least = 0, greatest = 0;  // priority range
  std::array<cudaStream_t, kPoolSize> normal{}, high{};
  std::atomic<uint32_t> next_normal{0}, next_high{0};
};

std::vector<std::unique_ptr<DevicePools>>& all_pools() {
  // Leaked on purpose: streams must outlive every static that may still use them at exit.
  static auto* pools = [] {
    auto* v = new std::vector<std::unique_ptr<DevicePools>>();
    for (int i = 0; i < device_count(); ++i) v->push_back(std::make_unique<DevicePools>());
    return v;
  }();
  return *pools;
}

DevicePools& pools_for(int device) {
  DevicePools& p = *all_pools().at(static_cast<size_t>(device));
  std::call_once(p.once, [&] {
    DeviceGuard guard(device);
    EMBER_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&p.least, &p.greatest));
    for (int i = 0; i < kPoolSize; ++i) {
      EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&p.normal[i], cudaStreamNonBlocking, p.least));
      EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&p.high[i], cudaStreamNonBlocking, p.greatest));
    }
  });
  return p;
}

struct Current {
  cudaStream_t handle = nullptr;
  int priority = 0;
};
thread_local std::vector<Current> tls_current;

Current& current_slot(int device) {
  if (tls_current.empty()) tls_current.resize(static_cast<size_t>(device_count()));
  return tls_current.at(static_cast<size_t>(device));
}

Stream make(int device, cudaStream_t s, int priority) {
  return Stream(Device(kCUDA, static_cast<DeviceIndex>(device)), s, priority);
}

}  // namespace

namespace detail {
cudaStream_t current_cuda_stream(int device) {
  return current_slot(device).handle;
}
}  // namespace detail

Stream Stream::create(int priority, int device) {
  detail::require_available("Stream::create");
  device = detail::resolve_device(device);
  DevicePools& p = pools_for(device);
  // CUDA counts priorities downwards: greatest is the most negative.
  if (priority < 0 && p.greatest < p.least) {
    uint32_t i = p.next_high.fetch_add(1) % kPoolSize;
    return make(device, p.high[i], p.greatest);
  }
  uint32_t i = p.next_normal.fetch_add(1) % kPoolSize;
  return make(device, p.normal[i], p.least);
}

bool Stream::query() const {
  detail::require_available("Stream::query");
  DeviceGuard guard(device_index());
  cudaError_t err = cudaStreamQuery(static_cast<cudaStream_t>(handle_));
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err);
  return false;
}

void Stream::synchronize() const {
  detail::require_available("Stream::synchronize");
  DeviceGuard guard(device_index());
  const auto t0 = std::chrono::steady_clock::now();
  EMBER_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(handle_)));
  audit::record_sync(
      /*implicit=*/false,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
      "cudaStreamSynchronize");
}

Stream getStreamFromPool(bool isHighPriority, int device) {
  detail::require_available("getStreamFromPool");
  return Stream::create(isHighPriority ? -1 : 0, device);
}
Stream default_stream(int device) {
  detail::require_available("default_stream");
  return make(detail::resolve_device(device), nullptr, 0);
}
Stream getDefaultCUDAStream(int device) {
  detail::require_available("getDefaultCUDAStream");
  return default_stream(device);
}
Stream current_stream(int device) {
  detail::require_available("current_stream");
  device = detail::resolve_device(device);
  const Current& c = current_slot(device);
  return make(device, c.handle, c.priority);
}
Stream getCurrentCUDAStream(int device) {
  detail::require_available("getCurrentCUDAStream");
  return current_stream(device);
}

void set_current_stream(const Stream& stream) {
  detail::require_available("set_current_stream");
  int device = detail::resolve_device(stream.device_index());
  current_slot(device) = Current{static_cast<cudaStream_t>(stream.stream()), stream.priority()};
}

std::pair<int, int> stream_priority_range() {
  detail::require_available("stream_priority_range");
  DevicePools& p = pools_for(current_device());
  return {p.least, p.greatest};
}

StreamGuard::StreamGuard(const Stream& stream)
    : original_stream_((detail::require_available("StreamGuard"),
                        ::ember::cuda::current_stream(stream.device_index()))),
      current_(stream),
      original_device_(current_device()) {
  EMBER_CUDA_CHECK(cudaSetDevice(stream.device_index()));
  set_current_stream(stream);
}

StreamGuard::~StreamGuard() {
  set_current_stream(original_stream_);
  (void)cudaSetDevice(original_device_);
}

DeviceGuard::DeviceGuard(int device)
    : original_((detail::require_available("DeviceGuard"), current_device())) {
  if (device >= 0 && device != original_) {
    EMBER_CUDA_CHECK(cudaSetDevice(detail::resolve_device(device)));
  }
}

DeviceGuard::~DeviceGuard() {
  int now = -1;
  if (cudaGetDevice(&now) == cudaSuccess && now != original_) (void)cudaSetDevice(original_);
}

}  // namespace ember::cuda
