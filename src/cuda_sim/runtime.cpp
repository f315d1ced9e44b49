// Devices, the current device, errors (per-thread last error, per-device sticky errors), device
// properties and the memory copies. Configuration from the environment:
//   EMBER_SIM_DEVICES        number of simulated devices (default 2; 0 = no device)
//   EMBER_SIM_DEVICE_MEMORY  capacity of each, e.g. 2GiB, 512MiB, 1073741824 (default 2GiB)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "sim_state.h"

namespace cuda_sim {
namespace {

size_t parse_bytes(const char* text, size_t fallback) {
  if (!text || !*text) return fallback;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || v <= 0) return fallback;
  std::string unit(end);
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 1;
  if (unit == "k" || unit == "kb" || unit == "kib") scale = 1024.0;
  if (unit == "m" || unit == "mb" || unit == "mib") scale = 1024.0 * 1024;
  if (unit == "g" || unit == "gb" || unit == "gib") scale = 1024.0 * 1024 * 1024;
  return static_cast<size_t>(v * scale);
}

struct Devices {
  std::vector<std::unique_ptr<Device>> list;
  Devices() {
    int n = 2;
    if (const char* e = std::getenv("EMBER_SIM_DEVICES")) n = std::max(0, std::atoi(e));
    const size_t capacity = parse_bytes(std::getenv("EMBER_SIM_DEVICE_MEMORY"), size_t(2) << 30);
    for (int i = 0; i < n; ++i) {
      auto d = std::make_unique<Device>();
      d->index = i;
      d->capacity = capacity;
      init_memory(*d);
      d->legacy = new Stream(i, cudaStreamDefault, 0);
      d->streams.push_back(d->legacy);
      list.push_back(std::move(d));
    }
  }
};

// Leaked on purpose: worker threads and Ember's statics may use devices during exit.
Devices& devices() {
  static auto* d = new Devices;
  return *d;
}

thread_local int tls_device = 0;
thread_local cudaError_t tls_last_error = cudaSuccess;

}  // namespace

int device_count() {
  return static_cast<int>(devices().list.size());
}
Device* device(int index) {
  auto& l = devices().list;
  return index >= 0 && index < static_cast<int>(l.size()) ? l[static_cast<size_t>(index)].get()
                                                          : nullptr;
}
int current_device_index() {
  return device_count() > 0 ? tls_device : -1;
}

cudaError_t sticky_error(int index) {
  Device* d = device(index);
  if (!d) return cudaSuccess;
  std::lock_guard<std::mutex> lock(d->m);
  return d->sticky;
}

void set_sticky(int index, cudaError_t err, const std::string& report) {
  Device* d = device(index);
  if (!d) return;
  std::string message = std::string(cudaGetErrorString(err)) + " [ember cuda-sim: " + report + "]";
  {
    std::lock_guard<std::mutex> lock(d->m);
    if (d->sticky != cudaSuccess) return;  // the first fault is the one to report
    d->sticky = err;
    d->sticky_message = std::move(message);
  }
  std::fprintf(stderr, "ember cuda-sim: %s\n", report.c_str());
}

cudaError_t fail(cudaError_t err) {
  if (err != cudaSuccess && err != cudaErrorNotReady) tls_last_error = err;
  return err;
}

void drain_device(Device& d) {
  std::vector<Stream*> streams;
  {
    std::lock_guard<std::mutex> lock(d.m);
    streams = d.streams;
  }
  for (Stream* s : streams) s->drain();
}

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

std::string describe_pointer(const void* p) {
  return describe(classify(p), p);
}

}  // namespace cuda_sim

using namespace cuda_sim;

namespace {

// The device whose memory `info` is, or -1 for host memory.
int owner(const PointerInfo& info) {
  return info.kind == MemoryKind::Pageable || info.kind == MemoryKind::Pinned ? -1 : info.device;
}

bool direction_matches(cudaMemcpyKind kind, int dst_dev, int src_dev) {
  switch (kind) {
    case cudaMemcpyHostToHost:
      return dst_dev < 0 && src_dev < 0;
    case cudaMemcpyHostToDevice:
      return dst_dev >= 0 && src_dev < 0;
    case cudaMemcpyDeviceToHost:
      return dst_dev < 0 && src_dev >= 0;
    case cudaMemcpyDeviceToDevice:
      return dst_dev >= 0 && src_dev >= 0;
    case cudaMemcpyDefault:
      return true;
  }
  return false;
}

// Checks a device range: live memory, wholly inside one allocation.
cudaError_t check_device_range(const void* p, size_t n, const char* what, int stream_device) {
  const PointerInfo info = classify(p);
  if (info.kind != MemoryKind::DeviceLive ||
      reinterpret_cast<uintptr_t>(p) + n > info.base + info.size) {
    const std::string report = std::string(what) + " on cuda:" + std::to_string(stream_device) +
                               " was given " + describe(info, p) + " for " + std::to_string(n) +
                               " bytes";
    if (info.kind == MemoryKind::DeviceLive || info.kind == MemoryKind::DeviceCachedFree) {
      set_sticky(stream_device, cudaErrorIllegalAddress, report);
      return fail(cudaErrorIllegalAddress);
    }
    std::fprintf(stderr, "ember cuda-sim: %s\n", report.c_str());
    return fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t memcpy_impl(void* dst, const void* src, size_t n, cudaMemcpyKind kind,
                        cudaStream_t stream, bool async) {
  Stream* s = resolve_stream(stream);
  if (!s) return fail(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = sticky_error(s->device)) return fail(e);
  if (n == 0) return cudaSuccess;
  if (!dst || !src) return fail(cudaErrorInvalidValue);
  const PointerInfo di = classify(dst), si = classify(src);
  const int dd = owner(di), sd = owner(si);
  if (!direction_matches(kind, dd, sd)) return fail(cudaErrorInvalidMemcpyDirection);
  if (dd >= 0) {
    if (cudaError_t e = check_device_range(dst, n, "cudaMemcpy", s->device)) return e;
  }
  if (sd >= 0) {
    if (cudaError_t e = check_device_range(src, n, "cudaMemcpy", s->device)) return e;
  }
  std::vector<int> gates;
  if (dd >= 0) gates.push_back(dd);
  if (sd >= 0 && sd != dd) gates.push_back(sd);
  const bool host_side_pinned =
      (dd < 0 && di.kind == MemoryKind::Pinned) || (sd < 0 && si.kind == MemoryKind::Pinned);
  const bool involves_host = dd < 0 || sd < 0;
  if (involves_host && dd >= 0 && !host_side_pinned) {
    // Pageable -> device: CUDA returns once the source is staged, before the copy lands.
    auto staged = std::make_shared<std::vector<char>>(static_cast<const char*>(src),
                                                      static_cast<const char*>(src) + n);
    const uint64_t seq =
        s->enqueue(Task{[dst, staged] { std::memcpy(dst, staged->data(), staged->size()); }, gates,
                        "cudaMemcpy HtoD"});
    if (!async) s->wait(seq);
    return sticky_error(s->device) ? fail(sticky_error(s->device)) : cudaSuccess;
  }
  const uint64_t seq =
      s->enqueue(Task{[dst, src, n] { std::memmove(dst, src, n); }, gates, "cudaMemcpy"});
  // Pageable host memory blocks until the copy is done; pinned memory and device-to-device
  // copies return at once when asynchronous.
  const bool blocks = !async || (involves_host && !host_side_pinned);
  if (blocks) s->wait(seq);
  return blocks && sticky_error(s->device) ? fail(sticky_error(s->device)) : cudaSuccess;
}

}  // namespace

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return fail(cudaErrorInvalidValue);
  *count = device_count();
  return *count > 0 ? cudaSuccess : fail(cudaErrorNoDevice);
}

cudaError_t cudaGetDevice(int* d) {
  if (!d) return fail(cudaErrorInvalidValue);
  if (device_count() == 0) return fail(cudaErrorNoDevice);
  *d = current_device_index();
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int d) {
  if (!device(d)) return fail(device_count() == 0 ? cudaErrorNoDevice : cudaErrorInvalidDevice);
  tls_device = d;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int index) {
  Device* d = device(index);
  if (!p) return fail(cudaErrorInvalidValue);
  if (!d) return fail(cudaErrorInvalidDevice);
  *p = cudaDeviceProp{};
  std::snprintf(p->name, sizeof(p->name), "Ember simulated CUDA device %d", index);
  p->totalGlobalMem = d->capacity;
  p->sharedMemPerBlock = 48 * 1024;
  p->sharedMemPerBlockOptin = 227 * 1024;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->multiProcessorCount = 1;
  p->major = 9;  // reports itself as a Hopper-class device
  p->minor = 0;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  Device* d = device(current_device_index());
  if (!d) return fail(cudaErrorNoDevice);
  drain_device(*d);
  if (cudaError_t e = sticky_error(d->index)) return fail(e);
  return cudaSuccess;
}

cudaError_t cudaDeviceReset() {
  // Clears the sticky error so a test can go on; memory stays allocated (Ember's caching
  // allocator still owns it), unlike a real reset.
  Device* d = device(current_device_index());
  if (!d) return fail(cudaErrorNoDevice);
  drain_device(*d);
  std::lock_guard<std::mutex> lock(d->m);
  d->sticky = cudaSuccess;
  d->sticky_message.clear();
  return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int* can, int device_index, int peer) {
  if (!can) return fail(cudaErrorInvalidValue);
  if (!device(device_index) || !device(peer)) return fail(cudaErrorInvalidDevice);
  *can = 0;  // kernels may only touch their own device's memory; copies go peer to peer
  return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int, unsigned) {
  return fail(cudaErrorNotSupported);
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  Device* d = device(current_device_index());
  if (!d) return fail(cudaErrorNoDevice);
  std::lock_guard<std::mutex> lock(d->m);
  if (free) *free = d->capacity - d->used;
  if (total) *total = d->capacity;
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  return memcpy_impl(dst, src, n, kind, nullptr, false);
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  return memcpy_impl(dst, src, n, kind, stream, true);
}
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                size_t n, cudaStream_t stream) {
  if (!device(dst_device) || !device(src_device)) return fail(cudaErrorInvalidDevice);
  const PointerInfo di = classify(dst), si = classify(src);
  if (n > 0 && (owner(di) != dst_device || owner(si) != src_device)) {
    std::fprintf(stderr,
                 "ember cuda-sim: cudaMemcpyPeerAsync: destination is %s (expected cuda:%d), "
                 "source is %s (expected cuda:%d)\n",
                 describe(di, dst).c_str(), dst_device, describe(si, src).c_str(), src_device);
    return fail(cudaErrorInvalidValue);
  }
  return memcpy_impl(dst, src, n, cudaMemcpyDeviceToDevice, stream, true);
}
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t n) {
  if (cudaError_t e = cudaMemcpyPeerAsync(dst, dst_device, src, src_device, n, nullptr)) return e;
  return cudaStreamSynchronize(nullptr);
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t n, cudaStream_t stream) {
  Stream* s = resolve_stream(stream);
  if (!s) return fail(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = sticky_error(s->device)) return fail(e);
  if (n == 0) return cudaSuccess;
  if (cudaError_t e = check_device_range(ptr, n, "cudaMemset", s->device)) return e;
  const int dev = classify(ptr).device;
  s->enqueue(Task{[ptr, value, n] { std::memset(ptr, value, n); }, {dev}, "cudaMemset"});
  return cudaSuccess;
}
cudaError_t cudaMemset(void* ptr, int value, size_t n) {
  if (cudaError_t e = cudaMemsetAsync(ptr, value, n, nullptr)) return e;
  return cudaStreamSynchronize(nullptr);
}

cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  Device* d = device(current_device_index());
  if (!d) return fail(cudaErrorNoDevice);
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize || value < 0 || value > 227 * 1024)
    return fail(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(d->m);
  d->max_dynamic_shared[func] = value;
  return cudaSuccess;
}

cudaError_t cudaGetLastError() {
  if (cudaError_t e = sticky_error(current_device_index())) {
    tls_last_error = cudaSuccess;  // the sticky error stands for it
    return e;
  }
  return std::exchange(tls_last_error, cudaSuccess);
}
cudaError_t cudaPeekAtLastError() {
  if (cudaError_t e = sticky_error(current_device_index())) return e;
  return tls_last_error;
}

const char* cudaGetErrorName(cudaError_t err) {
  switch (err) {
#define EMBER_SIM_NAME(e) \
  case e:                 \
    return #e;
    EMBER_SIM_NAME(cudaSuccess)
    EMBER_SIM_NAME(cudaErrorInvalidValue)
    EMBER_SIM_NAME(cudaErrorMemoryAllocation)
    EMBER_SIM_NAME(cudaErrorInitializationError)
    EMBER_SIM_NAME(cudaErrorInvalidConfiguration)
    EMBER_SIM_NAME(cudaErrorInvalidDevicePointer)
    EMBER_SIM_NAME(cudaErrorInvalidMemcpyDirection)
    EMBER_SIM_NAME(cudaErrorInsufficientDriver)
    EMBER_SIM_NAME(cudaErrorNoDevice)
    EMBER_SIM_NAME(cudaErrorInvalidDevice)
    EMBER_SIM_NAME(cudaErrorInvalidResourceHandle)
    EMBER_SIM_NAME(cudaErrorNotReady)
    EMBER_SIM_NAME(cudaErrorIllegalAddress)
    EMBER_SIM_NAME(cudaErrorLaunchOutOfResources)
    EMBER_SIM_NAME(cudaErrorPeerAccessAlreadyEnabled)
    EMBER_SIM_NAME(cudaErrorPeerAccessNotEnabled)
    EMBER_SIM_NAME(cudaErrorAssert)
    EMBER_SIM_NAME(cudaErrorLaunchFailure)
    EMBER_SIM_NAME(cudaErrorNotSupported)
    EMBER_SIM_NAME(cudaErrorUnknown)
#undef EMBER_SIM_NAME
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t err) {
  // A sticky error carries the simulator's report of what faulted.
  if (Device* d = device(current_device_index()); d && err != cudaSuccess) {
    std::lock_guard<std::mutex> lock(d->m);
    if (d->sticky == err && !d->sticky_message.empty()) return d->sticky_message.c_str();
  }
  switch (err) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInitializationError:
      return "initialization error";
    case cudaErrorInvalidConfiguration:
      return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer:
      return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection:
      return "invalid copy direction for memcpy";
    case cudaErrorInsufficientDriver:
      return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorNotReady:
      return "device not ready";
    case cudaErrorIllegalAddress:
      return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources:
      return "too many resources requested for launch";
    case cudaErrorLaunchFailure:
      return "unspecified launch failure";
    case cudaErrorAssert:
      return "device-side assert triggered";
    case cudaErrorNotSupported:
      return "operation not supported";
    default:
      return "unknown error";
  }
}
