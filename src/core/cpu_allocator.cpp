// CPU memory: 64-byte aligned so vector loads never straddle cache lines.
//
// Blocks of 1 MiB and more are kept in a small cache when freed and handed out again for the
// same rounded size. glibc returns such blocks to the kernel, and a fresh one costs a page fault
// and a kernel page clear per 4 KiB on first touch, which more than doubles the time of a large
// elementwise op (bench/: add of 16M floats). EMBER_CPU_CACHE_MB sets the cache's capacity
// (default 256, 0 turns it off); sanitizer builds do not cache, so use-after-free stays visible.
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "core/checked_size.h"
#include "ember/allocator.h"
#include "ember/error.h"

namespace ember {
namespace {

constexpr size_t kAlign = 64;
constexpr size_t kCacheFrom = size_t(1) << 20;
constexpr size_t kCacheGranule = size_t(256) << 10;

// Freed large blocks by size; the size sits in a 64-byte header in front of the data.
class LargeBlockCache {
 public:
  LargeBlockCache() {
#if defined(__SANITIZE_ADDRESS__)
    capacity_ = 0;
#else
    const char* env = std::getenv("EMBER_CPU_CACHE_MB");
    capacity_ = (env ? std::strtoull(env, nullptr, 10) : 256) << 20;
#endif
  }

  void* take(size_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(size);
    if (it == free_.end()) return nullptr;
    void* base = it->second;
    free_.erase(it);
    cached_ -= size;
    return base;
  }

  // Returns every cached block to the system (before giving up on an allocation).
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [size, base] : free_) std::free(base);
    free_.clear();
    cached_ = 0;
  }

  // False when the block does not fit; the caller frees it.
  bool put(void* base, size_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    if (cached_ + size > capacity_) return false;
    free_.emplace(size, base);
    cached_ += size;
    return true;
  }

 private:
  std::mutex mu_;
  std::multimap<size_t, void*> free_;
  size_t cached_ = 0;
  size_t capacity_ = 0;
};

// Never destroyed: tensors in static storage may be freed after other statics are gone.
LargeBlockCache& cache() {
  static auto* c = new LargeBlockCache();
  return *c;
}

void free_large(void* base) {
  size_t size = *static_cast<size_t*>(base);
  if (!cache().put(base, size)) std::free(base);
}

class CpuAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(kCPU));
    if (nbytes >= kCacheFrom) {
      // The 64-byte header in front, rounded to the granule; a count where that wraps around
      // size_t is out of memory rather than a small block.
      size_t size;
      EMBER_CHECK(
          nbytes <= SIZE_MAX - kAlign && checked::round_up(nbytes + kAlign, kCacheGranule, &size),
          OutOfMemoryError, "CPU out of memory: tried to allocate ", nbytes, " bytes");
      void* base = cache().take(size);
      if (!base) base = std::aligned_alloc(kAlign, size);
      if (!base) {  // cached blocks of other sizes may be what is missing
        cache().clear();
        base = std::aligned_alloc(kAlign, size);
      }
      EMBER_CHECK(base, OutOfMemoryError, "CPU out of memory: tried to allocate ", nbytes,
                  " bytes");
      *static_cast<size_t*>(base) = size;
      return DataPtr(static_cast<char*>(base) + kAlign, base, &free_large, Device(kCPU));
    }
    size_t rounded;
    checked::round_up(nbytes, kAlign, &rounded);  // nbytes < kCacheFrom: cannot wrap
    void* p = std::aligned_alloc(kAlign, rounded);
    EMBER_CHECK(p, OutOfMemoryError, "CPU out of memory: tried to allocate ", nbytes, " bytes");
    return DataPtr(p, p, &std::free, Device(kCPU));
  }
};

}  // namespace

Allocator* cpu_allocator() {
  static CpuAllocator alloc;
  return &alloc;
}

}  // namespace ember
