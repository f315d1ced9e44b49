// Pinned host memory: the host caching policy (src/cuda_policy) bound to cudaHostAlloc and to
// events recorded on whichever device's stream ran the copy.
#include "core/tensor_factory.h"
#include "cuda/cuda_internal.h"
#include "cuda_policy/host_caching_allocator.h"

namespace ember {
namespace cuda {
namespace {

using cuda_policy::HostBlock;
using cuda_policy::StreamId;

class CudaRawHost final : public cuda_policy::RawHost {
 public:
  void* raw_alloc(size_t n) override {
    void* p = nullptr;
    cudaError_t err = cudaHostAlloc(&p, n, cudaHostAllocDefault);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
    return p;
  }
  void raw_free(void* p) override { EMBER_CUDA_CHECK(cudaFreeHost(p)); }
};

// Streams of any device use the same host blocks, so a stream id must name its device: a
// non-default stream's handle does (cudaStreamGetDevice), the default stream's (nullptr) does
// not, so it is recorded as the tagged id (device << 1 | 1), never a valid handle (aligned).
cuda_policy::StreamId host_stream_id(cudaStream_t stream, int device) {
  if (stream) return reinterpret_cast<cuda_policy::StreamId>(stream);
  return (static_cast<cuda_policy::StreamId>(device) << 1) | 1u;
}

// An event is (re)created on the stream's device.
class HostEvents final : public cuda_policy::EventApi {
  struct Ev {
    cudaEvent_t e = nullptr;
    int device = -1;
  };

 public:
  Event create_event() override { return new Ev; }
  void destroy_event(Event p) override {
    auto* ev = static_cast<Ev*>(p);
    if (ev->e) (void)cudaEventDestroy(ev->e);
    delete ev;
  }
  void record(Event p, StreamId s) override {
    auto* ev = static_cast<Ev*>(p);
    cudaStream_t stream = nullptr;
    int device = 0;
    if (s & 1u) {  // a device's default stream (host_stream_id)
      device = static_cast<int>(s >> 1);
    } else {
      stream = reinterpret_cast<cudaStream_t>(s);
      EMBER_CUDA_CHECK(cudaStreamGetDevice(stream, &device));
    }
    DeviceGuard guard(device);
    if (ev->e && ev->device != device) {
      (void)cudaEventDestroy(ev->e);
      ev->e = nullptr;
    }
    if (!ev->e) {
      EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&ev->e, cudaEventDisableTiming));
      ev->device = device;
    }
    EMBER_CUDA_CHECK(cudaEventRecord(ev->e, stream));
  }
  bool query(Event p) override {
    cudaError_t err = cudaEventQuery(static_cast<Ev*>(p)->e);
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    EMBER_CUDA_CHECK(err);
    return true;
  }
  void synchronize(Event p) override {
    EMBER_CUDA_CHECK(cudaEventSynchronize(static_cast<Ev*>(p)->e));
  }
};

cuda_policy::HostCachingAllocator& host_policy() {
  // Leaked on purpose (see caching_allocator.cpp).
  static auto* raw = new CudaRawHost;
  static auto* events = new HostEvents;
  static auto* policy = new cuda_policy::HostCachingAllocator(*raw, *events);
  return *policy;
}

void free_host_block(void* ctx) {
  try {
    host_policy().free(static_cast<HostBlock*>(ctx));
  } catch (...) {
  }
}

class PinnedAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(kCPU));
    HostBlock* b = host_policy().allocate(nbytes);
    return DataPtr(b->ptr, b, &free_host_block, Device(kCPU));
  }
};

}  // namespace

namespace detail {
bool record_pinned_use(const Tensor& t, cudaStream_t stream, int device) {
  const DataPtr& d = t.impl()->storage()->data;
  if (d.deleter() != &free_host_block) return false;
  host_policy().record_stream(static_cast<HostBlock*>(d.context()), host_stream_id(stream, device));
  return true;
}
}  // namespace detail

size_t host_memory_allocated() {
  return is_available() ? static_cast<size_t>(host_policy().stats().allocated_bytes) : 0;
}
size_t host_memory_reserved() {
  return is_available() ? static_cast<size_t>(host_policy().stats().reserved_bytes) : 0;
}
void host_empty_cache() {
  if (is_available()) host_policy().empty_cache();
}

}  // namespace cuda

Allocator* pinned_host_allocator() {
  if (!cuda::is_available()) {
    throw DeviceError("Cannot allocate pinned memory: CUDA is not available: " +
                      cuda::unavailable_reason());
  }
  static cuda::PinnedAllocator alloc;
  return &alloc;
}

}  // namespace ember
