#pragma once
// The two small interfaces the caching allocators are written against. On a GPU they are bound to
// cudaMalloc/cudaFree/cudaEvent* (src/cuda); in the CPU tests to a simulated device of fixed
// capacity and fake events, so OOM, retry, fragmentation and stream reuse are testable anywhere.
#include <cstddef>
#include <cstdint>

#include "ember/macros.h"

namespace ember::cuda_policy {

// A stream's identity: the cudaStream_t handle as an integer (0 is the default stream).
using StreamId = uintptr_t;

class EMBER_API RawDevice {
 public:
  virtual ~RawDevice() = default;
  // nullptr when the device has no room; must not throw for out-of-memory.
  virtual void* raw_alloc(size_t nbytes) = 0;
  virtual void raw_free(void* ptr) = 0;
  virtual size_t total_memory() = 0;
  virtual size_t free_memory() = 0;
  virtual int index() const = 0;
  // A block of a segment was handed out / became free again (free blocks may be reused in
  // `stream` order). The CUDA simulator poisons and tracks free blocks; others ignore this.
  virtual void on_block_allocated(void* ptr, size_t nbytes) {}
  virtual void on_block_freed(void* ptr, size_t nbytes, StreamId stream) {}
};

// Events mark a point in a stream; query() is true once the work before it has finished.
class EMBER_API EventApi {
 public:
  using Event = void*;
  virtual ~EventApi() = default;
  virtual Event create_event() = 0;
  virtual void destroy_event(Event e) = 0;
  virtual void record(Event e, StreamId stream) = 0;
  virtual bool query(Event e) = 0;
  virtual void synchronize(Event e) = 0;
};

// Raw page-locked host memory (cudaHostAlloc / cudaFreeHost).
class EMBER_API RawHost {
 public:
  virtual ~RawHost() = default;
  virtual void* raw_alloc(size_t nbytes) = 0;  // nullptr on failure
  virtual void raw_free(void* ptr) = 0;
};

}  // namespace ember::cuda_policy
