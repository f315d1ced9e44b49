// The CUDA caching allocator policies, run on the CPU against a simulated device of fixed capacity
// and fake events whose completion the test controls.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <thread>

#include "cuda_policy/alloc_config.h"
#include "cuda_policy/caching_allocator.h"
#include "cuda_policy/host_caching_allocator.h"
#include "ember/error.h"

namespace ember::cuda_policy {
namespace {

constexpr size_t KiB = 1024, MiB = 1024 * 1024, GiB = 1024 * MiB;

// A device with `capacity` bytes; addresses are fake (never dereferenced).
class SimDevice : public RawDevice {
 public:
  explicit SimDevice(size_t capacity, int index = 0) : capacity_(capacity), index_(index) {}
  void* raw_alloc(size_t n) override {
    if (n > capacity_ - used_) return nullptr;
    uintptr_t p = next_;
    next_ += (n + 4095) / 4096 * 4096 + 4096;  // a gap: segments are never adjacent
    live_[p] = n;
    used_ += n;
    ++allocs;
    return reinterpret_cast<void*>(p);
  }
  void raw_free(void* p) override {
    auto it = live_.find(reinterpret_cast<uintptr_t>(p));
    ASSERT_NE(it, live_.end()) << "raw_free of an unknown pointer";
    used_ -= it->second;
    live_.erase(it);
    ++frees;
  }
  size_t total_memory() override { return capacity_; }
  size_t free_memory() override { return capacity_ - used_; }
  int index() const override { return index_; }
  size_t used() const { return used_; }
  size_t live_segments() const { return live_.size(); }
  int allocs = 0, frees = 0;

 private:
  size_t capacity_, used_ = 0;
  int index_;
  uintptr_t next_ = 0x10000000;
  std::map<uintptr_t, size_t> live_;
};

// Each stream has a queue position; an event completes when the stream has run past it.
class FakeEvents : public EventApi {
 public:
  struct Ev {
    StreamId stream = 0;
    uint64_t ticket = 0;
  };
  Event create_event() override {
    ++created;
    return new Ev;
  }
  void destroy_event(Event e) override {
    ++destroyed;
    delete static_cast<Ev*>(e);
  }
  void record(Event e, StreamId s) override {
    auto* ev = static_cast<Ev*>(e);
    ev->stream = s;
    ev->ticket = ++submitted_[s];
    ++records;
  }
  bool query(Event e) override {
    auto* ev = static_cast<Ev*>(e);
    return completed_[ev->stream] >= ev->ticket;
  }
  void synchronize(Event e) override {
    auto* ev = static_cast<Ev*>(e);
    completed_[ev->stream] = std::max(completed_[ev->stream], ev->ticket);
    ++syncs;
  }
  // The stream's queued work has finished.
  void finish(StreamId s) { completed_[s] = submitted_[s]; }
  int created = 0, destroyed = 0, records = 0, syncs = 0;

 private:
  std::map<StreamId, uint64_t> submitted_, completed_;
};

constexpr StreamId kS0 = 0, kS1 = 0x1111, kS2 = 0x2222;

int64_t stat(const DeviceCachingAllocator& a, const std::string& key) {
  auto m = a.memory_stats();
  auto it = m.find(key);
  EXPECT_NE(it, m.end()) << "missing stats key " << key;
  return it == m.end() ? -1 : it->second;
}

struct Fixture : ::testing::Test {
  SimDevice dev{1 * GiB};
  FakeEvents ev;
};
using CachingPolicy = Fixture;

TEST(CachingPolicyRounding, RoundsTo512Bytes) {
  EXPECT_EQ(DeviceCachingAllocator::round_size(0), 512u);
  EXPECT_EQ(DeviceCachingAllocator::round_size(1), 512u);
  EXPECT_EQ(DeviceCachingAllocator::round_size(512), 512u);
  EXPECT_EQ(DeviceCachingAllocator::round_size(513), 1024u);
  EXPECT_EQ(DeviceCachingAllocator::round_size(1 * MiB), 1 * MiB);
  EXPECT_EQ(DeviceCachingAllocator::round_size(1 * MiB + 1), 1 * MiB + 512);
}

TEST_F(CachingPolicy, SegmentSizesFollowThePoolRules) {
  DeviceCachingAllocator a(dev, ev);
  EXPECT_EQ(a.allocation_size(512), 2 * MiB);
  EXPECT_EQ(a.allocation_size(1 * MiB), 2 * MiB);
  EXPECT_EQ(a.allocation_size(1 * MiB + 512), 20 * MiB);
  EXPECT_EQ(a.allocation_size(10 * MiB - 512), 20 * MiB);
  EXPECT_EQ(a.allocation_size(10 * MiB), 10 * MiB);
  EXPECT_EQ(a.allocation_size(11 * MiB), 12 * MiB);
  EXPECT_EQ(a.allocation_size(100 * MiB + 512), 102 * MiB);
}

TEST_F(CachingPolicy, SmallAndLargeRequestsUseTheirPools) {
  DeviceCachingAllocator a(dev, ev);
  Block* s = a.malloc(1000, kS0);
  EXPECT_EQ(s->size, 1024u);
  EXPECT_TRUE(s->pool->is_small);
  EXPECT_EQ(stat(a, "segment.small_pool.current"), 1);
  EXPECT_EQ(stat(a, "reserved_bytes.small_pool.current"), int64_t(2 * MiB));
  Block* l = a.malloc(3 * MiB, kS0);
  EXPECT_FALSE(l->pool->is_small);
  EXPECT_EQ(stat(a, "segment.large_pool.current"), 1);
  EXPECT_EQ(stat(a, "reserved_bytes.large_pool.current"), int64_t(20 * MiB));
  EXPECT_EQ(stat(a, "reserved_bytes.all.current"), int64_t(22 * MiB));
  EXPECT_EQ(stat(a, "allocated_bytes.all.current"), int64_t(1024 + 3 * MiB));
  EXPECT_EQ(stat(a, "allocated_bytes.small_pool.current"), 1024);
  EXPECT_EQ(stat(a, "requested_bytes.all.current"), int64_t(1000 + 3 * MiB));
  EXPECT_EQ(dev.allocs, 2);
  a.free(s);
  a.free(l);
}

TEST_F(CachingPolicy, SmallBlocksShareOneSegment) {
  DeviceCachingAllocator a(dev, ev);
  Block* x = a.malloc(1000, kS0);
  Block* y = a.malloc(1000, kS0);
  EXPECT_EQ(y->ptr, x->ptr + 1024);
  EXPECT_EQ(dev.allocs, 1);
  a.free(x);
  a.free(y);
}

TEST_F(CachingPolicy, FreedBlockIsReusedWithoutTheDevice) {
  DeviceCachingAllocator a(dev, ev);
  Block* x = a.malloc(5 * MiB, kS0);
  char* p = x->ptr;
  a.free(x);
  Block* y = a.malloc(5 * MiB, kS0);
  EXPECT_EQ(y->ptr, p);
  EXPECT_EQ(dev.allocs, 1);
  EXPECT_EQ(stat(a, "allocation.all.allocated"), 2);
  EXPECT_EQ(stat(a, "allocation.all.freed"), 1);
  a.free(y);
}

TEST_F(CachingPolicy, SplitAndMergeNeighbours) {
  DeviceCachingAllocator a(dev, ev);
  Block* x = a.malloc(4 * KiB, kS0);
  Block* y = a.malloc(4 * KiB, kS0);
  Block* z = a.malloc(4 * KiB, kS0);
  auto snap = a.snapshot();
  ASSERT_EQ(snap.size(), 1u);
  ASSERT_EQ(snap[0].blocks.size(), 4u);  // x, y, z and the free tail
  EXPECT_EQ(snap[0].total_size, 2 * MiB);

  a.free(y);  // a hole between two live blocks: free but not releasable
  EXPECT_EQ(stat(a, "inactive_split.all.current"), 2);  // the hole and the tail
  EXPECT_EQ(stat(a, "inactive_split_bytes.all.current"), int64_t(2 * MiB - 8 * KiB));
  a.free(x);  // merges with y
  snap = a.snapshot();
  ASSERT_EQ(snap[0].blocks.size(), 3u);
  EXPECT_EQ(snap[0].blocks[0].size, 8 * KiB);
  EXPECT_FALSE(snap[0].blocks[0].allocated);
  a.free(z);  // merges with both sides: one free block covering the segment
  snap = a.snapshot();
  ASSERT_EQ(snap[0].blocks.size(), 1u);
  EXPECT_EQ(snap[0].blocks[0].size, 2 * MiB);
  EXPECT_EQ(stat(a, "inactive_split.all.current"), 0);
  EXPECT_EQ(stat(a, "inactive_split_bytes.all.current"), 0);
  EXPECT_EQ(stat(a, "active_bytes.all.current"), 0);
}

TEST_F(CachingPolicy, BestFitPicksTheSmallestBlockThatFits) {
  DeviceCachingAllocator a(dev, ev);
  Block* a4 = a.malloc(4 * KiB, kS0);
  Block* sep1 = a.malloc(512, kS0);
  Block* a8 = a.malloc(8 * KiB, kS0);
  Block* sep2 = a.malloc(512, kS0);
  char* p4 = a4->ptr;
  char* p8 = a8->ptr;
  a.free(a4);
  a.free(a8);
  Block* m6 = a.malloc(6 * KiB, kS0);  // 4K is too small; 8K fits better than the big tail
  EXPECT_EQ(m6->ptr, p8);
  Block* m3 = a.malloc(3 * KiB, kS0);
  EXPECT_EQ(m3->ptr, p4);
  // The 8K block was split: its 2K rest sits right after m6.
  Block* m2 = a.malloc(2 * KiB, kS0);
  EXPECT_EQ(m2->ptr, p8 + 6 * KiB);
  for (Block* b : {sep1, sep2, m6, m3, m2}) a.free(b);
  EXPECT_EQ(a.snapshot()[0].blocks.size(), 1u);
}

TEST_F(CachingPolicy, LargeBlocksSplitOnlyWhenTheRestExceedsOneMiB) {
  DeviceCachingAllocator a(dev, ev);
  Block* x = a.malloc(19 * MiB + 512, kS0);  // rest of the 20 MiB segment < 1 MiB: no split
  EXPECT_EQ(x->size, 20 * MiB);
  EXPECT_EQ(stat(a, "allocated_bytes.large_pool.current"), int64_t(20 * MiB));
  EXPECT_EQ(stat(a, "requested_bytes.large_pool.current"), int64_t(19 * MiB + 512));
  Block* y = a.malloc(2 * MiB, kS0);  // a new segment, split: 18 MiB cached
  EXPECT_EQ(y->size, 2 * MiB);
  EXPECT_EQ(a.snapshot().size(), 2u);
  a.free(x);
  a.free(y);
}

TEST_F(CachingPolicy, PoolsAreKeyedByStream) {
  DeviceCachingAllocator a(dev, ev);
  Block* x = a.malloc(5 * MiB, kS1);
  char* p = x->ptr;
  a.free(x);
  Block* y = a.malloc(5 * MiB, kS2);  // kS1's cached block is not handed to kS2
  EXPECT_NE(y->ptr, p);
  EXPECT_EQ(dev.allocs, 2);
  Block* z = a.malloc(5 * MiB, kS1);
  EXPECT_EQ(z->ptr, p);
  a.free(y);
  a.free(z);
}

TEST_F(CachingPolicy, RecordStreamDelaysReuseUntilTheEventCompletes) {
  DeviceCachingAllocator a(dev, ev);
  Block* x = a.malloc(5 * MiB, kS1);
  char* p = x->ptr;
  a.record_stream(x, kS2);
  a.record_stream(x, kS2);  // recorded once
  a.record_stream(x, kS1);  // its own stream needs no event
  a.free(x);
  EXPECT_EQ(ev.records, 1);
  EXPECT_EQ(stat(a, "allocated_bytes.all.current"), 0);
  EXPECT_EQ(stat(a, "active_bytes.all.current"), int64_t(5 * MiB));  // still in use by kS2
  EXPECT_EQ(a.snapshot()[0].blocks[0].pending_events, true);

  Block* y = a.malloc(5 * MiB, kS1);  // kS2 has not finished: the memory may still be read
  EXPECT_NE(y->ptr, p);
  ev.finish(kS2);
  Block* z = a.malloc(5 * MiB, kS1);
  EXPECT_EQ(z->ptr, p);
  EXPECT_EQ(stat(a, "active_bytes.all.current"), int64_t(10 * MiB));
  a.free(y);
  a.free(z);
}

TEST_F(CachingPolicy, EventsAreReusedAcrossFrees) {
  DeviceCachingAllocator a(dev, ev);
  for (int i = 0; i < 5; ++i) {
    Block* x = a.malloc(1000, kS1);
    a.record_stream(x, kS2);
    a.free(x);
    ev.finish(kS2);
  }
  a.empty_cache();
  EXPECT_EQ(ev.records, 5);
  EXPECT_LE(ev.created, 2);
}

TEST_F(CachingPolicy, EmptyCacheReleasesOnlyFullyFreeSegments) {
  DeviceCachingAllocator a(dev, ev);
  Block* keep = a.malloc(1000, kS0);       // small segment stays: a live block in it
  Block* gone1 = a.malloc(5 * MiB, kS0);   // large segment 1
  Block* gone2 = a.malloc(30 * MiB, kS0);  // large segment 2
  a.free(gone1);
  a.free(gone2);
  EXPECT_EQ(stat(a, "reserved_bytes.all.current"), int64_t(52 * MiB));
  a.empty_cache();
  EXPECT_EQ(stat(a, "reserved_bytes.all.current"), int64_t(2 * MiB));
  EXPECT_EQ(stat(a, "segment.all.current"), 1);
  EXPECT_EQ(stat(a, "num_device_free"), 2);
  EXPECT_EQ(dev.used(), 2 * MiB);
  a.free(keep);
  a.empty_cache();
  EXPECT_EQ(dev.used(), 0u);
  EXPECT_EQ(stat(a, "reserved_bytes.all.current"), 0);
}

TEST_F(CachingPolicy, EmptyCacheWaitsForPendingEvents) {
  DeviceCachingAllocator a(dev, ev);
  Block* x = a.malloc(5 * MiB, kS1);
  a.record_stream(x, kS2);
  a.free(x);
  a.empty_cache();
  EXPECT_GE(ev.syncs, 1);
  EXPECT_EQ(dev.used(), 0u);
  EXPECT_EQ(stat(a, "active_bytes.all.current"), 0);
}

TEST(CachingPolicyOom, RetryAfterFreeingTheCacheThenOomThenRecovery) {
  SimDevice dev(64 * MiB);
  FakeEvents ev;
  DeviceCachingAllocator a(dev, ev);
  Block* x = a.malloc(30 * MiB, kS0);
  Block* y = a.malloc(30 * MiB, kS0);
  a.free(x);                           // 30 MiB cached
  Block* z = a.malloc(32 * MiB, kS0);  // needs the cached segment to be given back first
  EXPECT_EQ(stat(a, "num_alloc_retries"), 1);
  EXPECT_EQ(stat(a, "num_device_free"), 1);
  EXPECT_EQ(stat(a, "num_ooms"), 0);

  EXPECT_THROW(a.malloc(40 * MiB, kS0), OutOfMemoryError);
  EXPECT_EQ(stat(a, "num_ooms"), 1);
  EXPECT_EQ(stat(a, "allocated_bytes.all.current"), int64_t(62 * MiB));  // unchanged by the OOM

  a.free(y);
  a.free(z);
  Block* w = a.malloc(40 * MiB, kS0);  // the program goes on once memory is free
  EXPECT_EQ(w->size, 40 * MiB);
  EXPECT_EQ(dev.used(), 40 * MiB);
  a.free(w);
}

// A request whose rounding to 512 bytes or 2 MiB would wrap around size_t (it gave a block of
// 0 bytes from the small pool) is out of memory at once, and the allocator goes on.
TEST(CachingPolicyOom, RequestsBeyondSizeMaxAreOutOfMemory) {
  SimDevice dev(64 * MiB);
  FakeEvents ev;
  DeviceCachingAllocator a(dev, ev);
  EXPECT_EQ(DeviceCachingAllocator::round_size(SIZE_MAX - 100), SIZE_MAX);
  EXPECT_EQ(a.allocation_size(SIZE_MAX - 100), SIZE_MAX);
  for (size_t n : {SIZE_MAX, SIZE_MAX - 100, SIZE_MAX - 2 * MiB}) {
    try {
      a.malloc(n, kS0);
      ADD_FAILURE() << "malloc(" << n << ") did not throw";
    } catch (const OutOfMemoryError& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA out of memory. Tried to allocate"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(stat(a, "num_ooms"), 3);
  EXPECT_EQ(stat(a, "allocated_bytes.all.current"), 0);
  EXPECT_EQ(dev.allocs, 0);
  Block* b = a.malloc(1 * MiB, kS0);
  EXPECT_EQ(b->size, 1 * MiB);
  a.free(b);
}

TEST(CachingPolicyOom, MessageFollowsPyTorch) {
  SimDevice dev(3 * GiB + GiB / 2, 1);
  FakeEvents ev;
  DeviceCachingAllocator a(dev, ev);
  Block* x = a.malloc(2 * GiB, kS0);
  try {
    a.malloc(2 * GiB, kS0);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_EQ(std::string(e.what()),
              "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of "
              "3.50 GiB of which 1.50 GiB is free. Of the allocated memory 2.00 GiB is allocated "
              "by Ember, and 0 bytes is reserved by Ember but unallocated. If reserved but "
              "unallocated memory is large try setting EMBER_CUDA_ALLOC_CONF=max_split_size_mb:<N> "
              "to avoid fragmentation.");
  }
  a.free(x);
}

TEST(CachingPolicyOom, FragmentationIsReportedAsReservedButUnallocated) {
  SimDevice dev(20 * MiB);
  FakeEvents ev;
  DeviceCachingAllocator a(dev, ev);
  std::vector<Block*> blocks;
  for (int i = 0; i < 10; ++i) blocks.push_back(a.malloc(1 * MiB, kS0));  // 5 segments of 2
  EXPECT_EQ(dev.allocs, 5);
  for (int i = 0; i < 10; i += 2) a.free(blocks[i]);  // one hole per segment: nothing releasable
  EXPECT_EQ(stat(a, "inactive_split_bytes.all.current"), int64_t(5 * MiB));
  try {
    a.malloc(12 * MiB, kS0);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("Tried to allocate 12.00 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("of which 10.00 MiB is free"), std::string::npos) << m;
    EXPECT_NE(m.find("5.00 MiB is allocated by Ember, and 5.00 MiB is reserved by Ember but "
                     "unallocated"),
              std::string::npos)
        << m;
  }
  for (int i = 1; i < 10; i += 2) a.free(blocks[i]);  // holes merge: segments free again
  Block* big = a.malloc(12 * MiB, kS0);               // the retry releases the now-free segments
  EXPECT_EQ(big->size, 12 * MiB);
  a.free(big);
}

TEST(CachingPolicyFraction, LimitsReservedMemory) {
  SimDevice dev(100 * MiB);
  FakeEvents ev;
  DeviceCachingAllocator a(dev, ev);
  a.set_memory_fraction(0.5);
  Block* x = a.malloc(40 * MiB, kS0);
  try {
    a.malloc(20 * MiB, kS0);  // the device has 60 MiB free, the process only 10 MiB
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("limited to 50.00 MiB by set_per_process_memory_fraction"),
              std::string::npos)
        << e.what();
  }
  a.set_memory_fraction(1.0);
  Block* y = a.malloc(20 * MiB, kS0);
  EXPECT_THROW(a.set_memory_fraction(1.5), ValueError);
  EXPECT_THROW(a.set_memory_fraction(-0.1), ValueError);
  try {
    a.set_memory_fraction(2);
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("Invalid fraction value: 2"), std::string::npos);
  }
  a.free(x);
  a.free(y);
}

TEST(CachingPolicyConfig, MaxSplitSizeKeepsOversizeBlocksWhole) {
  SimDevice dev(1 * GiB);
  FakeEvents ev;
  AllocatorConfig c;
  c.max_split_size = 40 * MiB;
  DeviceCachingAllocator a(dev, ev, c);
  EXPECT_EQ(stat(a, "max_split_size"), int64_t(40 * MiB));
  Block* x = a.malloc(50 * MiB, kS0);
  EXPECT_EQ(stat(a, "oversize_allocations.current"), 1);
  EXPECT_EQ(stat(a, "oversize_segments.current"), 1);
  char* p = x->ptr;
  a.free(x);
  EXPECT_EQ(stat(a, "oversize_allocations.current"), 0);
  Block* small = a.malloc(12 * MiB, kS0);  // would be carved from 50 MiB without the limit
  EXPECT_NE(small->ptr, p);
  Block* near = a.malloc(45 * MiB, kS0);  // close enough in size: reused whole, not split
  EXPECT_EQ(near->ptr, p);
  EXPECT_EQ(near->size, 50 * MiB);
  a.free(small);
  a.free(near);
}

TEST(CachingPolicyConfig, NoCachingReturnsMemoryAtOnce) {
  SimDevice dev(1 * GiB);
  FakeEvents ev;
  AllocatorConfig c;
  c.caching = false;
  DeviceCachingAllocator a(dev, ev, c);
  Block* x = a.malloc(1000, kS0);
  EXPECT_EQ(dev.used(), 1024u);
  a.free(x);
  EXPECT_EQ(dev.used(), 0u);
  EXPECT_EQ(dev.frees, 1);
  Block* y = a.malloc(3 * MiB, kS1);
  a.record_stream(y, kS2);
  a.free(y);
  EXPECT_EQ(dev.used(), 3 * MiB);  // waits for kS2
  ev.finish(kS2);
  Block* z = a.malloc(512, kS0);  // processing events releases it
  EXPECT_EQ(dev.used(), 512u);
  a.free(z);
  EXPECT_EQ(stat(a, "reserved_bytes.all.current"), 0);
}

TEST(CachingPolicyConfig, GarbageCollectionFreesOldCachedSegments) {
  SimDevice dev(100 * MiB);
  FakeEvents ev;
  AllocatorConfig c;
  c.garbage_collection_threshold = 0.5;
  DeviceCachingAllocator a(dev, ev, c);
  a.set_memory_fraction(1.0);
  std::vector<Block*> v;
  for (int i = 0; i < 4; ++i) v.push_back(a.malloc(20 * MiB, kS1));
  for (Block* b : v) a.free(b);
  EXPECT_EQ(stat(a, "reserved_bytes.all.current"), int64_t(80 * MiB));
  Block* x = a.malloc(20 * MiB, kS2);  // no cached block for kS2: collect first
  EXPECT_EQ(stat(a, "num_alloc_retries"), 0);
  EXPECT_EQ(stat(a, "num_device_free"), 2);  // 80 -> 40 MiB, under the 50 MiB threshold
  EXPECT_EQ(stat(a, "reserved_bytes.all.current"), int64_t(60 * MiB));
  a.free(x);
}

TEST(CachingPolicyConfig, ParsesTheEnvironmentString) {
  AllocatorConfig c = AllocatorConfig::parse(
      "max_split_size_mb:128, garbage_collection_threshold:0.6,"
      "expandable_segments:False");
  EXPECT_EQ(c.max_split_size, 128 * MiB);
  EXPECT_DOUBLE_EQ(c.garbage_collection_threshold, 0.6);
  EXPECT_TRUE(c.caching);
  EXPECT_EQ(AllocatorConfig::parse("").max_split_size, SIZE_MAX);
  EXPECT_EQ(AllocatorConfig::parse("max_split_size_mb:None").max_split_size, SIZE_MAX);
}

void expect_value_error(const std::string& conf, const std::string& needle) {
  try {
    AllocatorConfig::parse(conf);
    ADD_FAILURE() << "no error for '" << conf << "'";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "'" << conf << "' gave: " << e.what();
  }
}

TEST(CachingPolicyConfig, BadValuesNameTheOption) {
  expect_value_error("max_split_size_mb:abc", "max_split_size_mb");
  expect_value_error("max_split_size_mb:abc", "'abc'");
  expect_value_error("max_split_size_mb:10", "greater than 20");
  expect_value_error("max_split_size_mb:-5", "max_split_size_mb");
  expect_value_error("garbage_collection_threshold:1.5", "garbage_collection_threshold");
  expect_value_error("garbage_collection_threshold:0", "strictly between 0 and 1");
  expect_value_error("garbage_collection_threshold:x", "garbage_collection_threshold");
  expect_value_error("expandable_segments:True", "expandable_segments");
  expect_value_error("expandable_segments:maybe", "True or False");
  expect_value_error("max_split_mb:100", "unrecognized option 'max_split_mb'");
  expect_value_error("max_split_size_mb", "has no value");
}

TEST(CachingPolicyConfig, ReadsTheEnvironment) {
  setenv("EMBER_CUDA_ALLOC_CONF", "max_split_size_mb:64", 1);
  setenv("EMBER_NO_CUDA_MEMORY_CACHING", "1", 1);
  AllocatorConfig c = AllocatorConfig::from_env();
  EXPECT_EQ(c.max_split_size, 64 * MiB);
  EXPECT_FALSE(c.caching);
  setenv("EMBER_CUDA_ALLOC_CONF", "garbage_collection_threshold:2", 1);
  EXPECT_THROW(AllocatorConfig::from_env(), ValueError);
  unsetenv("EMBER_CUDA_ALLOC_CONF");
  unsetenv("EMBER_NO_CUDA_MEMORY_CACHING");
  EXPECT_TRUE(AllocatorConfig::from_env().caching);
}

TEST_F(CachingPolicy, StatisticsTrackCurrentPeakAllocatedFreed) {
  DeviceCachingAllocator a(dev, ev);
  Block* x = a.malloc(3 * MiB, kS0);
  Block* y = a.malloc(3 * MiB, kS0);
  a.free(x);
  EXPECT_EQ(stat(a, "allocated_bytes.all.current"), int64_t(3 * MiB));
  EXPECT_EQ(stat(a, "allocated_bytes.all.peak"), int64_t(6 * MiB));
  EXPECT_EQ(stat(a, "allocated_bytes.all.allocated"), int64_t(6 * MiB));
  EXPECT_EQ(stat(a, "allocated_bytes.all.freed"), int64_t(3 * MiB));
  EXPECT_EQ(stat(a, "allocated_bytes.large_pool.peak"), int64_t(6 * MiB));
  EXPECT_EQ(stat(a, "allocated_bytes.small_pool.peak"), 0);
  EXPECT_EQ(stat(a, "allocation.all.current"), 1);
  EXPECT_EQ(stat(a, "allocation.all.peak"), 2);
  EXPECT_EQ(stat(a, "segment.all.current"), 1);
  EXPECT_EQ(stat(a, "reserved_bytes.all.peak"), int64_t(20 * MiB));
  a.reset_peak_stats();
  EXPECT_EQ(stat(a, "allocated_bytes.all.peak"), int64_t(3 * MiB));
  a.reset_accumulated_stats();
  EXPECT_EQ(stat(a, "allocated_bytes.all.allocated"), 0);
  EXPECT_EQ(stat(a, "allocated_bytes.all.current"), int64_t(3 * MiB));
  a.free(y);
  // Every PyTorch key is present.
  auto m = a.memory_stats();
  for (const char* k :
       {"allocation", "segment", "active", "inactive_split", "allocated_bytes", "reserved_bytes",
        "active_bytes", "inactive_split_bytes", "requested_bytes"}) {
    for (const char* p : {"all", "small_pool", "large_pool"}) {
      for (const char* f : {"current", "peak", "allocated", "freed"}) {
        std::string key = std::string(k) + "." + p + "." + f;
        EXPECT_TRUE(m.count(key)) << key;
      }
    }
  }
  for (const char* k : {"num_alloc_retries", "num_ooms", "oversize_allocations.current",
                        "oversize_segments.peak", "num_device_alloc", "num_device_free"}) {
    EXPECT_TRUE(m.count(k)) << k;
  }
}

TEST_F(CachingPolicy, MemorySummaryIsPyTorchsTable) {
  DeviceCachingAllocator a(dev, ev);
  Block* x = a.malloc(3 * MiB, kS0);
  std::string s = a.memory_summary();
  std::vector<std::string> lines;
  for (size_t p = 0, n; p < s.size(); p = n + 1) {
    n = s.find('\n', p);
    lines.push_back(s.substr(p, n - p));
  }
  ASSERT_GT(lines.size(), 30u);
  for (const std::string& l : lines) EXPECT_EQ(l.size(), 77u) << "'" << l << "'";
  EXPECT_NE(s.find("Ember CUDA memory summary, device ID 0"), std::string::npos);
  EXPECT_NE(s.find("CUDA OOMs: 0"), std::string::npos);
  EXPECT_NE(s.find("|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |"),
            std::string::npos);
  EXPECT_NE(s.find("| Allocated memory      |   3072 KiB |   3072 KiB |   3072 KiB |      0 B   |"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("|       from large pool |   3072 KiB |"), std::string::npos) << s;
  EXPECT_NE(s.find("| GPU reserved memory   |  20480 KiB |"), std::string::npos) << s;
  EXPECT_NE(s.find("| Allocations           |       1    |"), std::string::npos) << s;
  EXPECT_NE(s.find("| Oversize GPU segments |       0    |"), std::string::npos) << s;
  std::string brief = a.memory_summary(true);
  EXPECT_EQ(brief.find("from large pool"), std::string::npos);
  EXPECT_NE(brief.find("Requested memory"), std::string::npos);
  a.free(x);
}

TEST_F(CachingPolicy, DoubleFreeIsAnError) {
  DeviceCachingAllocator a(dev, ev);
  Block* x = a.malloc(1000, kS0);
  Block* y = a.malloc(1000, kS0);  // keeps x's Block object alive after its free
  a.free(x);
  EXPECT_THROW(a.free(x), Error);
  a.free(y);
}

TEST_F(CachingPolicy, ConcurrentMallocFreeKeepsStatsConsistent) {
  DeviceCachingAllocator a(dev, ev);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&a, t] {
      std::vector<Block*> mine;
      for (int i = 0; i < 500; ++i) {
        mine.push_back(a.malloc(static_cast<size_t>((i * 7919 + t) % (3 * MiB)), kS0));
        if (mine.size() > 8) {  // at most ~27 MiB live per thread: no OOM whatever the interleaving
          a.free(mine.front());
          mine.erase(mine.begin());
        }
      }
      for (Block* b : mine) a.free(b);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(stat(a, "allocated_bytes.all.current"), 0);
  EXPECT_EQ(stat(a, "active.all.current"), 0);
  EXPECT_EQ(stat(a, "requested_bytes.all.current"), 0);
  EXPECT_EQ(stat(a, "reserved_bytes.all.current"), int64_t(dev.used()));
  a.empty_cache();
  EXPECT_EQ(dev.used(), 0u);
  EXPECT_EQ(stat(a, "inactive_split.all.current"), 0);
}

// ---- pinned host memory ----

class SimHost : public RawHost {
 public:
  explicit SimHost(size_t cap) : cap_(cap) {}
  void* raw_alloc(size_t n) override {
    if (n > cap_ - used_) return nullptr;
    used_ += n;
    ++allocs;
    void* p = std::malloc(n);
    sizes_[p] = n;
    return p;
  }
  void raw_free(void* p) override {
    used_ -= sizes_.at(p);
    sizes_.erase(p);
    std::free(p);
    ++frees;
  }
  size_t used() const { return used_; }
  int allocs = 0, frees = 0;

 private:
  size_t cap_, used_ = 0;
  std::map<void*, size_t> sizes_;
};

TEST(HostCachingPolicy, RoundsToPowersOfTwoAndReuses) {
  SimHost host(1 * GiB);
  FakeEvents ev;
  HostCachingAllocator a(host, ev);
  EXPECT_EQ(HostCachingAllocator::round_size(1), 1u);
  EXPECT_EQ(HostCachingAllocator::round_size(1000), 1024u);
  EXPECT_EQ(HostCachingAllocator::round_size(1025), 2048u);
  EXPECT_EQ(a.allocate(0), nullptr);
  HostBlock* x = a.allocate(3000);
  EXPECT_EQ(x->size, 4096u);
  void* p = x->ptr;
  EXPECT_EQ(a.find(static_cast<char*>(p) + 100), x);
  EXPECT_EQ(a.find(&host), nullptr);
  a.free(x);
  HostBlock* y = a.allocate(4096);
  EXPECT_EQ(y->ptr, p);
  EXPECT_EQ(host.allocs, 1);
  EXPECT_EQ(a.stats().allocated_bytes, 4096);
  a.free(y);
  EXPECT_EQ(a.stats().allocated_bytes, 0);
  EXPECT_EQ(a.stats().reserved_bytes, 4096);
  a.empty_cache();
  EXPECT_EQ(host.used(), 0u);
  EXPECT_EQ(a.stats().reserved_bytes, 0);
}

TEST(HostCachingPolicy, BlockInFlightIsNotReusedUntilItsCopyFinished) {
  SimHost host(1 * GiB);
  FakeEvents ev;
  HostCachingAllocator a(host, ev);
  HostBlock* x = a.allocate(1 * MiB);
  void* p = x->ptr;
  a.record_stream(x, kS1);  // a non_blocking copy reads it
  a.free(x);                // the host tensor dies at once
  HostBlock* y = a.allocate(1 * MiB);
  EXPECT_NE(y->ptr, p);  // the copy may still be reading p
  ev.finish(kS1);
  HostBlock* z = a.allocate(1 * MiB);
  EXPECT_EQ(z->ptr, p);
  a.free(y);
  a.free(z);
}

// A request beyond the largest power of two in size_t (std::bit_ceil's domain) is out of memory.
TEST(HostCachingPolicy, RequestsBeyondTheLargestPowerOfTwoAreOutOfMemory) {
  SimHost host(4 * MiB);
  FakeEvents ev;
  HostCachingAllocator a(host, ev);
  for (size_t n : {SIZE_MAX, (SIZE_MAX >> 1) + 2}) {
    try {
      a.allocate(n);
      ADD_FAILURE() << "allocate(" << n << ") did not throw";
    } catch (const OutOfMemoryError& e) {
      EXPECT_NE(std::string(e.what()).find("Pinned host memory"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(host.allocs, 0);
  HostBlock* b = a.allocate(1000);
  EXPECT_EQ(b->size, 1024u);
  a.free(b);
}

TEST(HostCachingPolicy, OutOfPinnedMemoryRetriesThenThrows) {
  SimHost host(4 * MiB);
  FakeEvents ev;
  HostCachingAllocator a(host, ev);
  HostBlock* x = a.allocate(2 * MiB);
  a.free(x);                           // cached
  HostBlock* y = a.allocate(3 * MiB);  // 4 MiB: needs the cache released first
  EXPECT_EQ(y->size, 4 * MiB);
  EXPECT_EQ(host.frees, 1);
  try {
    a.allocate(1);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("Pinned host memory"), std::string::npos) << e.what();
  }
  a.free(y);
  HostBlock* z = a.allocate(1);
  EXPECT_NE(z, nullptr);
  a.free(z);
}

}  // namespace
}  // namespace ember::cuda_policy
