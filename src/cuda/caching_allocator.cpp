// Binds the caching allocator policy (src/cuda_policy) to cudaMalloc/cudaFree/cudaEvent, one
// allocator per device, and implements torch.cuda's memory API on top of it.
#include <memory>
#include <mutex>
#include <vector>

#include "cuda/cublas_workspace.h"
#include "cuda/cuda_internal.h"
#include "cuda/device_allocator.h"
#include "cuda/simulator_hooks.h"
#include "cuda_policy/caching_allocator.h"

namespace ember::cuda {
namespace {

using cuda_policy::Block;
using cuda_policy::DeviceCachingAllocator;
using cuda_policy::StreamId;

class CudaRawDevice final : public cuda_policy::RawDevice {
 public:
  explicit CudaRawDevice(int device) : device_(device) {}
  void* raw_alloc(size_t n) override {
    DeviceGuard guard(device_);
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, n);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return nullptr;
    }
    EMBER_CUDA_CHECK(err);
    return p;
  }
  void raw_free(void* p) override {
    DeviceGuard guard(device_);
    EMBER_CUDA_CHECK(cudaFree(p));
  }
  size_t total_memory() override { return mem_get_info(device_).second; }
  size_t free_memory() override { return mem_get_info(device_).first; }
  int index() const override { return device_; }
  // For the simulator's poison and use-after-free reports; a GPU build ignores them.
  void on_block_allocated(void* p, size_t n) override { detail::note_block_allocated(p, n); }
  void on_block_freed(void* p, size_t n, cuda_policy::StreamId s) override {
    detail::note_block_freed(p, n, reinterpret_cast<cudaStream_t>(s));
  }

 private:
  int device_;
};

class CudaEvents final : public cuda_policy::EventApi {
 public:
  explicit CudaEvents(int device) : device_(device) {}
  Event create_event() override {
    DeviceGuard guard(device_);
    cudaEvent_t e = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return e;
  }
  void destroy_event(Event e) override { (void)cudaEventDestroy(static_cast<cudaEvent_t>(e)); }
  void record(Event e, StreamId s) override {
    DeviceGuard guard(device_);
    EMBER_CUDA_CHECK(
        cudaEventRecord(static_cast<cudaEvent_t>(e), reinterpret_cast<cudaStream_t>(s)));
  }
  bool query(Event e) override {
    cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(e));
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    EMBER_CUDA_CHECK(err);
    return true;
  }
  void synchronize(Event e) override {
    EMBER_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(e)));
  }

 private:
  int device_;
};

void free_block(void* ctx) {
  auto* b = static_cast<Block*>(ctx);
  try {
    b->owner->free(b);
  } catch (...) {
    // A deleter cannot throw; a failing free means the context is already broken.
  }
}

class CudaAllocator final : public Allocator {
 public:
  CudaAllocator(int device, DeviceCachingAllocator& policy) : device_(device), policy_(policy) {}
  DataPtr allocate(size_t nbytes) override {
    return allocate_on(nbytes, reinterpret_cast<StreamId>(detail::current_cuda_stream(device_)));
  }
  DataPtr allocate_on(size_t nbytes, StreamId stream) {
    const Device dev(kCUDA, static_cast<DeviceIndex>(device_));
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, dev);
    Block* b = policy_.malloc(nbytes, stream);
    return DataPtr(b->ptr, b, &free_block, dev);
  }

 private:
  int device_;
  DeviceCachingAllocator& policy_;
};

struct DeviceState {
  explicit DeviceState(int d, const cuda_policy::AllocatorConfig& c)
      : raw(d), events(d), policy(raw, events, c), allocator(d, policy) {}
  CudaRawDevice raw;
  CudaEvents events;
  DeviceCachingAllocator policy;
  CudaAllocator allocator;
};

struct States {
  std::mutex mutex;
  std::vector<std::unique_ptr<DeviceState>> devices;
};

// Leaked on purpose: tensors held by statics are freed after any static here would be gone.
States& states() {
  static auto* s = new States;
  return *s;
}

DeviceState& state(int device) {
  device = detail::resolve_device(device);
  States& s = states();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.devices.empty()) s.devices.resize(static_cast<size_t>(device_count()));
  auto& slot = s.devices[static_cast<size_t>(device)];
  // A bad EMBER_CUDA_ALLOC_CONF throws ValueError here, on first use, and again on every try.
  if (!slot) slot = std::make_unique<DeviceState>(device, cuda_policy::AllocatorConfig::from_env());
  return *slot;
}

}  // namespace

Allocator* device_allocator(int device) {
  return &state(device).allocator;
}

DataPtr allocate_on_stream(int device, size_t nbytes, void* stream) {
  return state(device).allocator.allocate_on(nbytes, reinterpret_cast<StreamId>(stream));
}

void record_stream(const DataPtr& data, const StreamRef& stream) {
  if (!data.device().is_cuda() || data.get() == nullptr) return;
  EMBER_CHECK(data.deleter() == &free_block, ValueError,
              "record_stream: this CUDA memory was not allocated by Ember's caching allocator");
  EMBER_CHECK(stream.device.is_cuda() && stream.device.index() == data.device().index(),
              DeviceError, "record_stream: the tensor is on ", data.device(),
              " but the stream belongs to ", stream.device);
  auto* b = static_cast<Block*>(data.context());
  b->owner->record_stream(b, reinterpret_cast<StreamId>(stream.handle));
}

void empty_cache() {
  if (!is_available()) return;
  // cuBLAS workspaces go back too (PyTorch keeps them until torch._C._cuda_clearCublasWorkspaces):
  // each block returns to its own stream's pool, and releasing a segment waits for the device,
  // so a GEMM still queued with it finishes first. The next GEMM takes a new one.
  release_cublas_workspaces();
  States& s = states();
  std::vector<DeviceCachingAllocator*> policies;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    for (auto& d : s.devices) {
      if (d) policies.push_back(&d->policy);
    }
  }
  for (DeviceCachingAllocator* p : policies) p->empty_cache();
}

std::map<std::string, int64_t> memory_stats(int device) {
  if (!is_available()) return {};
  return state(device).policy.memory_stats();
}
size_t memory_allocated(int device) {
  if (!is_available()) return 0;
  return static_cast<size_t>(state(device).policy.stats().allocated_bytes[0].current);
}
size_t max_memory_allocated(int device) {
  if (!is_available()) return 0;
  return static_cast<size_t>(state(device).policy.stats().allocated_bytes[0].peak);
}
size_t memory_reserved(int device) {
  if (!is_available()) return 0;
  return static_cast<size_t>(state(device).policy.stats().reserved_bytes[0].current);
}
size_t max_memory_reserved(int device) {
  if (!is_available()) return 0;
  return static_cast<size_t>(state(device).policy.stats().reserved_bytes[0].peak);
}
void reset_peak_memory_stats(int device) {
  if (!is_available()) return;
  state(device).policy.reset_peak_stats();
}
std::string memory_summary(int device, bool abbreviated) {
  if (!is_available()) {
    throw DeviceError("memory_summary: CUDA is not available: " + unavailable_reason());
  }
  return state(device).policy.memory_summary(abbreviated);
}
void set_per_process_memory_fraction(double fraction, int device) {
  if (!is_available()) {
    throw DeviceError("set_per_process_memory_fraction: CUDA is not available: " +
                      unavailable_reason());
  }
  state(device).policy.set_memory_fraction(fraction);
}

}  // namespace ember::cuda

namespace ember {
void Tensor::record_stream(const StreamRef& stream) const {
  cuda::record_stream(impl()->storage()->data, stream);
}
}  // namespace ember
