// The pinned host caching allocator policy (see host_caching_allocator.h).
#include "cuda_policy/host_caching_allocator.h"

#include <algorithm>
#include <bit>

#include "cuda_policy/memory_stats.h"
#include "ember/error.h"

namespace ember::cuda_policy {

HostCachingAllocator::HostCachingAllocator(RawHost& host, EventApi& events)
    : host_(host), events_(events) {}

HostCachingAllocator::~HostCachingAllocator() {
  try {
    empty_cache();
    for (EventApi::Event e : free_events_) events_.destroy_event(e);
  } catch (...) {
  }
}

// Beyond the largest power of two in size_t, std::bit_ceil is undefined: SIZE_MAX instead, which
// allocate reports as out of memory.
size_t HostCachingAllocator::round_size(size_t nbytes) {
  if (nbytes > (SIZE_MAX >> 1) + 1) return SIZE_MAX;
  return std::bit_ceil(std::max<size_t>(nbytes, 1));
}

HostBlock* HostCachingAllocator::allocate(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  const size_t size = round_size(nbytes);
  std::lock_guard<std::mutex> lock(mutex_);
  EMBER_CHECK(size != SIZE_MAX, OutOfMemoryError,
              "Pinned host memory: out of memory. Tried to allocate ", format_size(nbytes),
              " of page-locked memory (", nbytes, " bytes: more than any machine has)");
  process_events();
  if (auto it = free_.find(size); it != free_.end()) {
    HostBlock* b = it->second;
    free_.erase(it);
    b->allocated = true;
    stats_.allocated_bytes += static_cast<int64_t>(size);
    return b;
  }
  void* p = host_.raw_alloc(size);
  if (!p) {
    // Unpin what the cache holds and try once more.
    for (auto& [e, b] : pending_) events_.synchronize(e);
    process_events();
    release_cached();
    p = host_.raw_alloc(size);
  }
  EMBER_CHECK(p, OutOfMemoryError, "Pinned host memory: out of memory. Tried to allocate ",
              format_size(size), " of page-locked memory (",
              format_size(static_cast<uint64_t>(stats_.reserved_bytes)),
              " already pinned by Ember)");
  auto* b = new HostBlock;
  b->size = size;
  b->ptr = p;
  b->allocated = true;
  blocks_[reinterpret_cast<uintptr_t>(p)] = b;
  ++stats_.num_host_alloc;
  stats_.reserved_bytes += static_cast<int64_t>(size);
  stats_.allocated_bytes += static_cast<int64_t>(size);
  return b;
}

void HostCachingAllocator::free(HostBlock* b) {
  if (!b) return;
  std::lock_guard<std::mutex> lock(mutex_);
  EMBER_CHECK(b->allocated, Error, "pinned host allocator: block freed twice");
  b->allocated = false;
  stats_.allocated_bytes -= static_cast<int64_t>(b->size);
  for (StreamId s : b->streams) {
    EventApi::Event e;
    if (!free_events_.empty()) {
      e = free_events_.back();
      free_events_.pop_back();
    } else {
      e = events_.create_event();
    }
    events_.record(e, s);
    ++b->event_count;
    pending_.emplace_back(e, b);
  }
  b->streams.clear();
  if (b->event_count == 0) free_.emplace(b->size, b);
}

void HostCachingAllocator::record_stream(HostBlock* b, StreamId stream) {
  if (!b) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::find(b->streams.begin(), b->streams.end(), stream) == b->streams.end()) {
    b->streams.push_back(stream);
  }
}

HostBlock* HostCachingAllocator::find(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto a = reinterpret_cast<uintptr_t>(ptr);
  auto it = blocks_.upper_bound(a);
  if (it == blocks_.begin()) return nullptr;
  --it;
  return a < it->first + it->second->size ? it->second : nullptr;
}

void HostCachingAllocator::process_events() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (!events_.query(it->first)) {
      ++it;
      continue;
    }
    free_events_.push_back(it->first);
    HostBlock* b = it->second;
    it = pending_.erase(it);
    if (--b->event_count == 0 && !b->allocated) free_.emplace(b->size, b);
  }
}

void HostCachingAllocator::release_cached() {
  for (auto& [size, b] : free_) {
    host_.raw_free(b->ptr);
    blocks_.erase(reinterpret_cast<uintptr_t>(b->ptr));
    stats_.reserved_bytes -= static_cast<int64_t>(size);
    ++stats_.num_host_free;
    delete b;
  }
  free_.clear();
}

void HostCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [e, b] : pending_) events_.synchronize(e);
  process_events();
  release_cached();
}

HostStats HostCachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace ember::cuda_policy
