#pragma once
// The caching device allocator of DESIGN.md section 4, for one device, written against RawDevice
// and EventApi so the same policy runs on cudaMalloc and on a simulated device in the CPU tests.
//
// Requests are rounded to 512 bytes. Up to 1 MiB they come from the small pool (2 MiB segments),
// up to 10 MiB from 20 MiB segments of the large pool, larger ones from segments rounded to
// 2 MiB. A request takes the best-fitting cached block of its own stream and splits off the
// rest; freed blocks merge with free neighbours. A block used on other streams (record_stream)
// returns to the cache only once an event recorded on each of them has completed. When the device
// is full, cached segments are released and the allocation retried before OutOfMemoryError.
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cuda_policy/alloc_config.h"
#include "cuda_policy/memory_stats.h"
#include "cuda_policy/raw_device.h"

namespace ember::cuda_policy {

constexpr size_t kMinBlockSize = 512;
constexpr size_t kSmallSize = 1 << 20;       // largest request served by the small pool
constexpr size_t kSmallBuffer = 2 << 20;     // small pool segment size
constexpr size_t kMinLargeAlloc = 10 << 20;  // below this, large requests get 20 MiB segments
constexpr size_t kLargeBuffer = 20 << 20;
constexpr size_t kRoundLarge = 2 << 20;  // larger segments are rounded to 2 MiB

class DeviceCachingAllocator;
struct BlockPool;

struct Block {
  size_t size = 0;       // bytes of this block (rounded)
  size_t requested = 0;  // bytes the caller asked for
  char* ptr = nullptr;
  StreamId stream = 0;  // the stream it was allocated on: the pool it returns to
  BlockPool* pool = nullptr;
  DeviceCachingAllocator* owner = nullptr;
  Block* prev = nullptr;  // neighbours within the same segment
  Block* next = nullptr;
  bool allocated = false;
  bool in_pool = false;
  int event_count = 0;                // outstanding events before the block may be reused
  int gc_count = 0;                   // misses since last use, for garbage collection
  std::vector<StreamId> stream_uses;  // streams other than `stream` that used it
  bool is_split() const { return prev != nullptr || next != nullptr; }
};

struct BlockLess {
  bool operator()(const Block* a, const Block* b) const {
    if (a->stream != b->stream) return a->stream < b->stream;
    if (a->size != b->size) return a->size < b->size;
    return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
  }
};

struct BlockPool {
  explicit BlockPool(bool small) : is_small(small) {}
  std::set<Block*, BlockLess> blocks;
  bool is_small;
};

// One segment and its blocks, for tests and debugging (torch.cuda.memory_snapshot-like).
struct SegmentInfo {
  uintptr_t address;
  size_t total_size;
  StreamId stream;
  bool is_small;
  struct BlockInfo {
    size_t size;
    bool allocated;
    bool pending_events;
  };
  std::vector<BlockInfo> blocks;
};

class EMBER_API DeviceCachingAllocator {
 public:
  DeviceCachingAllocator(RawDevice& device, EventApi& events, AllocatorConfig config = {});
  ~DeviceCachingAllocator();
  DeviceCachingAllocator(const DeviceCachingAllocator&) = delete;
  DeviceCachingAllocator& operator=(const DeviceCachingAllocator&) = delete;

  // Never returns nullptr; throws OutOfMemoryError (PyTorch's message) when nothing fits.
  // A zero-byte request gets a 512-byte block, as any other small one.
  Block* malloc(size_t nbytes, StreamId stream);
  void free(Block* block);
  // The block's memory is (also) used by work on `stream`.
  void record_stream(Block* block, StreamId stream);
  // Waits for pending events, then returns every fully free segment to the device.
  void empty_cache();
  // Caps this process's reserved memory at fraction * total; throws ValueError outside [0, 1].
  void set_memory_fraction(double fraction);

  DeviceStats stats() const;
  std::map<std::string, int64_t> memory_stats() const { return stats().to_map(); }
  std::string memory_summary(bool abbreviated = false) const;
  void reset_peak_stats();
  void reset_accumulated_stats();
  std::vector<SegmentInfo> snapshot() const;
  const AllocatorConfig& config() const { return config_; }

  static size_t round_size(size_t nbytes);
  size_t allocation_size(size_t rounded) const;

 private:
  BlockPool& pool_for(size_t rounded) { return rounded <= kSmallSize ? small_ : large_; }
  Block* take_free_block(BlockPool& pool, StreamId stream, size_t size);
  Block* alloc_segment(BlockPool& pool, StreamId stream, size_t alloc_size);
  bool should_split(const Block* b, size_t size) const;
  void pool_insert(Block* b);
  void pool_erase(Block* b);
  void free_block(Block* b);
  void release_segment(Block* b);
  void release_cached_blocks();
  void garbage_collect();
  void process_events();
  void synchronize_and_free_events();
  EventApi::Event get_event();
  [[noreturn]] void throw_oom(size_t alloc_size);

  RawDevice& device_;
  EventApi& events_;
  AllocatorConfig config_;
  mutable std::mutex mutex_;
  BlockPool small_{true}, large_{false};
  std::set<Block*> segments_;  // the first block of every segment
  std::deque<std::pair<EventApi::Event, Block*>> pending_;
  std::vector<EventApi::Event> free_events_;
  DeviceStats stats_;
  size_t total_reserved_ = 0;
  bool fraction_set_ = false;
  size_t allowed_max_ = SIZE_MAX;
};

}  // namespace ember::cuda_policy
