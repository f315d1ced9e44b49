#pragma once
// The caching allocator for pinned (page-locked) host memory. Sizes are rounded up to a power of
// two and freed blocks are cached by size. A block that an asynchronous copy used is reused only
// after an event recorded on that copy's stream has completed, so a non_blocking copy from pinned
// memory stays correct even when the host tensor is destroyed right after the call.
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "cuda_policy/raw_device.h"

namespace ember::cuda_policy {

struct HostBlock {
  size_t size = 0;
  void* ptr = nullptr;
  bool allocated = false;
  int event_count = 0;
  std::vector<StreamId> streams;  // streams with copies in flight
};

struct HostStats {
  int64_t allocated_bytes = 0;  // handed out now
  int64_t reserved_bytes = 0;   // pinned in total (handed out + cached)
  int64_t num_host_alloc = 0;   // calls to the raw allocator
  int64_t num_host_free = 0;
};

class EMBER_API HostCachingAllocator {
 public:
  HostCachingAllocator(RawHost& host, EventApi& events);
  ~HostCachingAllocator();
  HostCachingAllocator(const HostCachingAllocator&) = delete;
  HostCachingAllocator& operator=(const HostCachingAllocator&) = delete;

  // nbytes == 0 gives nullptr. Throws OutOfMemoryError when the system cannot pin more.
  HostBlock* allocate(size_t nbytes);
  void free(HostBlock* block);
  // An asynchronous copy on `stream` reads or writes this block.
  void record_stream(HostBlock* block, StreamId stream);
  // The block holding `ptr` (any address inside it), or nullptr if not pinned by us.
  HostBlock* find(const void* ptr) const;
  // Waits for pending events and unpins every cached block.
  void empty_cache();
  HostStats stats() const;

  static size_t round_size(size_t nbytes);

 private:
  void process_events();
  void release_cached();

  RawHost& host_;
  EventApi& events_;
  mutable std::mutex mutex_;
  std::multimap<size_t, HostBlock*> free_;  // cached blocks by size
  std::map<uintptr_t, HostBlock*> blocks_;  // every block by address
  std::deque<std::pair<EventApi::Event, HostBlock*>> pending_;
  std::vector<EventApi::Event> free_events_;
  HostStats stats_;
};

}  // namespace ember::cuda_policy
