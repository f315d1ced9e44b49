// The caching device allocator policy (see caching_allocator.h).
#include "cuda_policy/caching_allocator.h"

#include <algorithm>

#include "core/checked_size.h"
#include "ember/error.h"

namespace ember::cuda_policy {

DeviceCachingAllocator::DeviceCachingAllocator(RawDevice& device, EventApi& events,
                                               AllocatorConfig config)
    : device_(device), events_(events), config_(config) {
  if (config_.max_split_size != SIZE_MAX) {
    stats_.max_split_size = static_cast<int64_t>(config_.max_split_size);
  }
}

DeviceCachingAllocator::~DeviceCachingAllocator() {
  // Only cached memory goes back; blocks still held by tensors belong to them (at process exit
  // the driver reclaims everything anyway).
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    synchronize_and_free_events();
    release_cached_blocks();
    for (EventApi::Event e : free_events_) events_.destroy_event(e);
  } catch (...) {
  }
}

// A size that cannot be rounded without wrapping becomes SIZE_MAX, which no device satisfies:
// malloc reports it as out of memory at once.
size_t DeviceCachingAllocator::round_size(size_t nbytes) {
  if (nbytes < kMinBlockSize) return kMinBlockSize;
  size_t r;
  return checked::round_up(nbytes, kMinBlockSize, &r) ? r : SIZE_MAX;
}

size_t DeviceCachingAllocator::allocation_size(size_t rounded) const {
  if (!config_.caching) return rounded;
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  size_t r;
  return checked::round_up(rounded, kRoundLarge, &r) ? r : SIZE_MAX;
}

void DeviceCachingAllocator::pool_insert(Block* b) {
  b->in_pool = true;
  b->pool->blocks.insert(b);
  if (b->is_split()) {
    DeviceStats::update(stats_.inactive_split, b->pool->is_small, 1);
    DeviceStats::update(stats_.inactive_split_bytes, b->pool->is_small,
                        static_cast<int64_t>(b->size));
  }
}

void DeviceCachingAllocator::pool_erase(Block* b) {
  b->in_pool = false;
  b->pool->blocks.erase(b);
  if (b->is_split()) {
    DeviceStats::update(stats_.inactive_split, b->pool->is_small, -1);
    DeviceStats::update(stats_.inactive_split_bytes, b->pool->is_small,
                        -static_cast<int64_t>(b->size));
  }
}

Block* DeviceCachingAllocator::take_free_block(BlockPool& pool, StreamId stream, size_t size) {
  if (config_.garbage_collection_threshold > 0 && fraction_set_) {
    for (Block* b : pool.blocks) ++b->gc_count;
  }
  Block key;
  key.stream = stream;
  key.size = size;
  key.ptr = nullptr;
  auto it = pool.blocks.lower_bound(&key);
  if (it == pool.blocks.end() || (*it)->stream != stream) return nullptr;
  Block* b = *it;
  // Oversize blocks are kept for requests of their own size: never carved up for small ones.
  if (size < config_.max_split_size && b->size >= config_.max_split_size) return nullptr;
  if (size >= config_.max_split_size && b->size >= size + kLargeBuffer) return nullptr;
  pool_erase(b);
  b->gc_count = 0;
  return b;
}

Block* DeviceCachingAllocator::alloc_segment(BlockPool& pool, StreamId stream, size_t alloc_size) {
  if (fraction_set_ && total_reserved_ + alloc_size > allowed_max_) return nullptr;
  void* p = device_.raw_alloc(alloc_size);
  if (!p) return nullptr;
  auto* b = new Block;
  b->size = alloc_size;
  b->ptr = static_cast<char*>(p);
  b->stream = stream;
  b->pool = &pool;
  b->owner = this;
  segments_.insert(b);
  total_reserved_ += alloc_size;
  DeviceStats::update(stats_.segment, pool.is_small, 1);
  DeviceStats::update(stats_.reserved_bytes, pool.is_small, static_cast<int64_t>(alloc_size));
  if (alloc_size >= config_.max_split_size) stats_.oversize_segments.update(1);
  ++stats_.num_device_alloc;
  return b;
}

void DeviceCachingAllocator::release_segment(Block* b) {
  pool_erase(b);
  device_.raw_free(b->ptr);
  segments_.erase(b);
  total_reserved_ -= b->size;
  DeviceStats::update(stats_.segment, b->pool->is_small, -1);
  DeviceStats::update(stats_.reserved_bytes, b->pool->is_small, -static_cast<int64_t>(b->size));
  if (b->size >= config_.max_split_size) stats_.oversize_segments.update(-1);
  ++stats_.num_device_free;
  delete b;
}

void DeviceCachingAllocator::release_cached_blocks() {
  for (BlockPool* pool : {&small_, &large_}) {
    for (auto it = pool->blocks.begin(); it != pool->blocks.end();) {
      Block* b = *it++;
      if (!b->is_split()) release_segment(b);
    }
  }
}

// Frees the oldest unused cached segments until usage is back under the threshold.
void DeviceCachingAllocator::garbage_collect() {
  size_t threshold =
      static_cast<size_t>(config_.garbage_collection_threshold * static_cast<double>(allowed_max_));
  if (total_reserved_ <= threshold) return;
  size_t target = total_reserved_ - threshold, freed = 0;
  while (freed < target) {
    std::vector<Block*> candidates;
    double age_sum = 0;
    for (BlockPool* pool : {&small_, &large_}) {
      for (Block* b : pool->blocks) {
        if (!b->is_split()) {
          candidates.push_back(b);
          age_sum += b->gc_count;
        }
      }
    }
    if (candidates.empty()) return;
    double average = age_sum / static_cast<double>(candidates.size());
    for (Block* b : candidates) {
      if (b->gc_count >= average && freed < target) {
        freed += b->size;
        release_segment(b);
      }
    }
  }
}

bool DeviceCachingAllocator::should_split(const Block* b, size_t size) const {
  size_t remaining = b->size - size;
  if (b->pool->is_small) return remaining >= kMinBlockSize;
  return size < config_.max_split_size && remaining > kSmallSize;
}

Block* DeviceCachingAllocator::malloc(size_t nbytes, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  process_events();
  const size_t size = round_size(nbytes);
  BlockPool& pool = pool_for(size);
  const size_t alloc_size = allocation_size(size);
  if (alloc_size == SIZE_MAX) throw_oom(nbytes);  // its rounding would wrap around size_t

  Block* b = config_.caching ? take_free_block(pool, stream, size) : nullptr;
  if (!b) {
    if (config_.garbage_collection_threshold > 0 && fraction_set_) garbage_collect();
    b = alloc_segment(pool, stream, alloc_size);
    if (!b) {
      // Give every cached segment back and try once more before reporting OOM.
      ++stats_.num_alloc_retries;
      synchronize_and_free_events();
      release_cached_blocks();
      b = alloc_segment(pool, stream, alloc_size);
    }
    if (!b) throw_oom(alloc_size);
  }

  if (should_split(b, size)) {
    auto* rest = new Block;
    rest->size = b->size - size;
    rest->ptr = b->ptr + size;
    rest->stream = stream;
    rest->pool = &pool;
    rest->owner = this;
    rest->prev = b;
    rest->next = b->next;
    if (b->next) b->next->prev = rest;
    b->next = rest;
    b->size = size;
    pool_insert(rest);
  }
  b->allocated = true;
  b->requested = nbytes;
  device_.on_block_allocated(b->ptr, b->size);
  const bool small = pool.is_small;
  DeviceStats::update(stats_.allocation, small, 1);
  DeviceStats::update(stats_.allocated_bytes, small, static_cast<int64_t>(b->size));
  DeviceStats::update(stats_.active, small, 1);
  DeviceStats::update(stats_.active_bytes, small, static_cast<int64_t>(b->size));
  DeviceStats::update(stats_.requested_bytes, small, static_cast<int64_t>(nbytes));
  if (b->size >= config_.max_split_size) stats_.oversize_allocations.update(1);
  return b;
}

void DeviceCachingAllocator::free(Block* b) {
  std::lock_guard<std::mutex> lock(mutex_);
  EMBER_CHECK(b && b->owner == this && b->allocated, Error,
              "CUDA caching allocator: free() of a block it did not hand out (or freed twice)");
  b->allocated = false;
  const bool small = b->pool->is_small;
  DeviceStats::update(stats_.allocation, small, -1);
  DeviceStats::update(stats_.allocated_bytes, small, -static_cast<int64_t>(b->size));
  DeviceStats::update(stats_.requested_bytes, small, -static_cast<int64_t>(b->requested));
  if (b->size >= config_.max_split_size) stats_.oversize_allocations.update(-1);
  if (!b->stream_uses.empty()) {
    // Work queued on the other streams may still touch the memory: reuse waits for it.
    for (StreamId s : b->stream_uses) {
      EventApi::Event e = get_event();
      events_.record(e, s);
      ++b->event_count;
      pending_.emplace_back(e, b);
    }
    b->stream_uses.clear();
    return;
  }
  free_block(b);
}

void DeviceCachingAllocator::free_block(Block* b) {
  device_.on_block_freed(b->ptr, b->size, b->stream);
  const bool small = b->pool->is_small;
  DeviceStats::update(stats_.active, small, -1);
  DeviceStats::update(stats_.active_bytes, small, -static_cast<int64_t>(b->size));
  // Merge with free neighbours; the leftmost Block object survives, so segment heads are stable.
  if (Block* n = b->next; n && n->in_pool) {
    pool_erase(n);
    b->size += n->size;
    b->next = n->next;
    if (b->next) b->next->prev = b;
    delete n;
  }
  if (Block* p = b->prev; p && p->in_pool) {
    pool_erase(p);
    p->size += b->size;
    p->next = b->next;
    if (p->next) p->next->prev = p;
    delete b;
    b = p;
  }
  b->requested = 0;
  pool_insert(b);
  if (!config_.caching && !b->is_split()) release_segment(b);
}

void DeviceCachingAllocator::record_stream(Block* b, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  EMBER_CHECK(b && b->owner == this && b->allocated, Error,
              "record_stream: the memory was not allocated by this CUDA caching allocator");
  if (stream == b->stream) return;
  if (std::find(b->stream_uses.begin(), b->stream_uses.end(), stream) == b->stream_uses.end()) {
    b->stream_uses.push_back(stream);
  }
}

EventApi::Event DeviceCachingAllocator::get_event() {
  if (!free_events_.empty()) {
    EventApi::Event e = free_events_.back();
    free_events_.pop_back();
    return e;
  }
  return events_.create_event();
}

void DeviceCachingAllocator::process_events() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (!events_.query(it->first)) {
      ++it;
      continue;
    }
    free_events_.push_back(it->first);
    Block* b = it->second;
    it = pending_.erase(it);
    if (--b->event_count == 0) free_block(b);
  }
}

void DeviceCachingAllocator::synchronize_and_free_events() {
  if (!pending_.empty()) ++stats_.num_sync_all_streams;
  while (!pending_.empty()) {
    auto [e, b] = pending_.front();
    pending_.pop_front();
    events_.synchronize(e);
    free_events_.push_back(e);
    if (--b->event_count == 0) free_block(b);
  }
}

void DeviceCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  synchronize_and_free_events();
  release_cached_blocks();
}

void DeviceCachingAllocator::set_memory_fraction(double fraction) {
  EMBER_CHECK(fraction >= 0.0 && fraction <= 1.0, ValueError, "Invalid fraction value: ", fraction,
              ". Allowed range: 0~1");
  std::lock_guard<std::mutex> lock(mutex_);
  fraction_set_ = true;
  allowed_max_ = static_cast<size_t>(fraction * static_cast<double>(device_.total_memory()));
}

void DeviceCachingAllocator::throw_oom(size_t alloc_size) {
  ++stats_.num_ooms;
  const size_t total = device_.total_memory(), free = device_.free_memory();
  const auto allocated = static_cast<size_t>(stats_.allocated_bytes[0].current);
  const auto reserved = static_cast<size_t>(stats_.reserved_bytes[0].current);
  std::string allowed;
  if (fraction_set_) {
    allowed = detail::str_cat("This process is limited to ", format_size(allowed_max_),
                              " by set_per_process_memory_fraction. ");
  }
  throw OutOfMemoryError(detail::str_cat(
      "CUDA out of memory. Tried to allocate ", format_size(alloc_size), ". GPU ", device_.index(),
      " has a total capacity of ", format_size(total), " of which ", format_size(free),
      " is free. ", allowed, "Of the allocated memory ", format_size(allocated),
      " is allocated by Ember, and ", format_size(reserved - allocated),
      " is reserved by Ember but unallocated. If reserved but unallocated memory is large try "
      "setting EMBER_CUDA_ALLOC_CONF=max_split_size_mb:<N> to avoid fragmentation."));
}

DeviceStats DeviceCachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::string DeviceCachingAllocator::memory_summary(bool abbreviated) const {
  return format_memory_summary(memory_stats(), device_.index(), abbreviated);
}

void DeviceCachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.reset_peak();
}

void DeviceCachingAllocator::reset_accumulated_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.reset_accumulated();
}

std::vector<SegmentInfo> DeviceCachingAllocator::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<SegmentInfo> out;
  for (const Block* head : segments_) {
    SegmentInfo s{
        reinterpret_cast<uintptr_t>(head->ptr), 0, head->stream, head->pool->is_small, {}};
    for (const Block* b = head; b; b = b->next) {
      s.total_size += b->size;
      s.blocks.push_back({b->size, b->allocated, b->event_count > 0});
    }
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(),
            [](const SegmentInfo& a, const SegmentInfo& b) { return a.address < b.address; });
  return out;
}

}  // namespace ember::cuda_policy
