// The caching allocators on a real GPU: statistics, empty_cache, OOM then recovery, the memory
// fraction, memory_summary, record_stream, and pinned non_blocking copies racing with host frees.
// Skipped, visibly, without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>
#include <vector>

#include "ember/cuda.h"
#include "ember/ops.h"
#include "support/cuda_skip.h"

namespace ember {
namespace {

constexpr size_t MiB = 1 << 20;

class CudaMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    EMBER_SKIP_WITHOUT_CUDA();
    cuda::synchronize();
    cuda::empty_cache();
    cuda::reset_peak_memory_stats();
  }
};

// Device numbers were cut to 8 bits and then used unchecked: set_device(257) made cuda:1
// current, memory_allocated(257) and memory_stats(258) read past the allocator's table of devices.
// Every ordinal beyond the devices (or below -1, "current") is a DeviceError naming it, and
// nothing changes.
TEST_F(CudaMemory, OrdinalsBeyondTheDevicesAreErrors) {
  const int n = cuda::device_count();
  const int before = cuda::current_device();
  for (int bad : {n, 256, 257, 258, 1 << 20, -2}) {
    const std::string ordinal = std::to_string(bad);
    auto expect_error = [&](const char* what, auto&& f) {
      try {
        f();
        ADD_FAILURE() << what << "(" << bad << ") did not throw";
      } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find(ordinal), std::string::npos)
            << what << ": " << e.what();
      }
    };
    expect_error("set_device", [&] { cuda::set_device(bad); });
    expect_error("memory_allocated", [&] { cuda::memory_allocated(bad); });
    expect_error("max_memory_allocated", [&] { cuda::max_memory_allocated(bad); });
    expect_error("memory_reserved", [&] { cuda::memory_reserved(bad); });
    expect_error("max_memory_reserved", [&] { cuda::max_memory_reserved(bad); });
    expect_error("memory_stats", [&] { cuda::memory_stats(bad); });
    expect_error("reset_peak_memory_stats", [&] { cuda::reset_peak_memory_stats(bad); });
    expect_error("memory_summary", [&] { cuda::memory_summary(bad); });
    expect_error("set_per_process_memory_fraction",
                 [&] { cuda::set_per_process_memory_fraction(0.5, bad); });
    expect_error("mem_get_info", [&] { cuda::mem_get_info(bad); });
    expect_error("synchronize", [&] { cuda::synchronize(bad); });
    expect_error("get_device_properties", [&] { cuda::get_device_properties(bad); });
    expect_error("current_stream", [&] { cuda::current_stream(bad); });
    expect_error("Stream::create", [&] { cuda::Stream::create(0, bad); });
    if (bad >= 0) expect_error("DeviceGuard", [&] { cuda::DeviceGuard g(bad); });
    expect_error("Device", [&] { empty({2}, TensorOptions().device(Device(kCUDA, bad))); });
    EXPECT_EQ(cuda::current_device(), before);
  }
  Tensor t = ones({4}, TensorOptions().device("cuda"));  // the process goes on
  EXPECT_EQ(t.sum().item<float>(), 4.f);
  EXPECT_NO_THROW(cuda::memory_stats(n - 1));
}

TEST_F(CudaMemory, StatisticsFollowAllocations) {
  EMBER_SKIP_WITHOUT_CUDA_CACHING();
  const size_t base = cuda::memory_allocated();
  {
    Tensor t = empty({1000}, TensorOptions().device("cuda"));  // 4000 B -> 4096 B block
    EXPECT_EQ(cuda::memory_allocated(), base + 4096);
    EXPECT_GE(cuda::memory_reserved(), 2 * MiB);
    auto s = cuda::memory_stats();
    EXPECT_GE(s.at("allocated_bytes.small_pool.current"), 4096);
    EXPECT_GE(s.at("requested_bytes.all.current"), 4000);
    Tensor big = empty({5 * int64_t(MiB)}, TensorOptions().device("cuda"));  // 20 MiB, large pool
    EXPECT_GE(cuda::memory_stats().at("reserved_bytes.large_pool.current"), int64_t(20 * MiB));
    EXPECT_EQ(cuda::max_memory_allocated(), cuda::memory_allocated());
  }
  EXPECT_EQ(cuda::memory_allocated(), base);
  EXPECT_GT(cuda::max_memory_allocated(), base);
  cuda::reset_peak_memory_stats();
  EXPECT_EQ(cuda::max_memory_allocated(), base);
}

TEST_F(CudaMemory, CachedMemoryIsReusedAndEmptyCacheReturnsIt) {
  EMBER_SKIP_WITHOUT_CUDA_CACHING();
  auto opts = TensorOptions().device("cuda");
  void* first;
  {
    Tensor t = empty({3 * int64_t(MiB)}, opts);
    first = t.data_ptr();
  }
  const size_t reserved = cuda::memory_reserved();
  EXPECT_GT(reserved, 0u);
  {
    Tensor t = empty({3 * int64_t(MiB)}, opts);
    EXPECT_EQ(t.data_ptr(), first);  // served from the cache
  }
  auto [free_before, total] = cuda::mem_get_info();
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_reserved(), cuda::memory_allocated());
  auto [free_after, total2] = cuda::mem_get_info();
  EXPECT_GT(free_after, free_before);
}

TEST_F(CudaMemory, OutOfMemoryThenRecovery) {
  const auto [free, total] = cuda::mem_get_info();
  const int64_t too_many = static_cast<int64_t>(total / 4) * 2;  // 2x the card, in floats
  const int64_t ooms = cuda::memory_stats().at("num_ooms");
  try {
    empty({too_many}, TensorOptions().device("cuda"));
    FAIL() << "allocating more than the GPU has did not fail";
  } catch (const OutOfMemoryError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("CUDA out of memory. Tried to allocate"), std::string::npos) << m;
    EXPECT_NE(m.find("GPU 0 has a total capacity of"), std::string::npos) << m;
    EXPECT_NE(m.find("is reserved by Ember but unallocated"), std::string::npos) << m;
  }
  EXPECT_EQ(cuda::memory_stats().at("num_ooms"), ooms + 1);
  Tensor ok = ones({1024}, TensorOptions().device("cuda"));  // the process goes on
  EXPECT_EQ(ok.sum().item<float>(), 1024.0f);
}

TEST_F(CudaMemory, MemoryFractionLimitsTheProcess) {
  const auto [free, total] = cuda::mem_get_info();
  cuda::set_per_process_memory_fraction(0.05);
  const int64_t floats = static_cast<int64_t>(total / 10 / 4);  // 10% of the card
  EXPECT_THROW(empty({floats}, TensorOptions().device("cuda")), OutOfMemoryError);
  cuda::set_per_process_memory_fraction(1.0);
  EXPECT_NO_THROW(empty({floats}, TensorOptions().device("cuda")));
  EXPECT_THROW(cuda::set_per_process_memory_fraction(1.5), ValueError);
}

TEST_F(CudaMemory, SummaryIsATable) {
  Tensor t = ones({1000}, TensorOptions().device("cuda"));
  const std::string s = cuda::memory_summary();
  EXPECT_NE(s.find("Ember CUDA memory summary, device ID 0"), std::string::npos) << s;
  EXPECT_NE(s.find("| Allocated memory      |"), std::string::npos) << s;
  EXPECT_NE(s.find("|       from small pool |"), std::string::npos) << s;
}

TEST_F(CudaMemory, RecordStreamKeepsMemoryUntilTheStreamIsDone) {
  auto opts = TensorOptions().device("cuda");
  cuda::Stream side = cuda::Stream::create();
  void* p;
  {
    Tensor t = ones({4 * int64_t(MiB)}, opts);
    p = t.data_ptr();
    // t is filled on the current stream: the side stream reads it only after that (ThreadSanitizer
    // on the simulator caught the read racing the fill).
    cuda::Event filled;
    filled.record();
    filled.wait(side);
    {
      cuda::StreamGuard g(side);
      Tensor u = t * 2;  // reads t on the side stream
      t.record_stream(side);
    }
  }
  // t is freed but the side stream may still read it: a new tensor must not get its memory
  // until the side stream has finished.
  Tensor again = empty({4 * int64_t(MiB)}, opts);
  if (!side.query()) EXPECT_NE(again.data_ptr(), p);
  side.synchronize();
  again.reset();
  cuda::empty_cache();  // waits for the recorded event, then the old block can go back too
  EXPECT_EQ(cuda::memory_reserved(), cuda::memory_allocated());
}

TEST_F(CudaMemory, PinnedNonBlockingCopiesSurviveHostFrees) {
  auto dev = TensorOptions().device("cuda");
  const int64_t n = 1 << 22;
  Tensor out = empty({16, n}, dev);
  for (int i = 0; i < 16; ++i) {
    Tensor host = full({n}, static_cast<float>(i)).pin_memory();
    EXPECT_TRUE(host.is_pinned());
    out[i].copy_(host, /*non_blocking=*/true);
    // The host tensor dies while the copy may still be reading it; its block must not be
    // handed out (and overwritten) before the copy finishes.
    host.reset();
    Tensor scribble = full({n}, -1.0f).pin_memory();
    (void)scribble;
  }
  Tensor sums = out.sum({1}).cpu();
  for (int i = 0; i < 16; ++i) EXPECT_EQ(sums[i].item<float>(), static_cast<float>(i) * n);
  EXPECT_GT(cuda::host_memory_reserved(), 0u);
  cuda::host_empty_cache();
}

TEST_F(CudaMemory, NonBlockingDeviceToPinnedHostNeedsASync) {
  Tensor d = arange(1 << 20, TensorOptions().dtype(kFloat).device("cuda"));
  Tensor h = empty({1 << 20}, TensorOptions().pinned_memory(true));
  h.copy_(d, /*non_blocking=*/true);
  cuda::current_stream().synchronize();
  EXPECT_EQ(h[12345].item<float>(), 12345.0f);
  // From pageable memory non_blocking behaves as a blocking copy: the data is there at once.
  Tensor pageable = empty({1 << 20});
  pageable.copy_(d, /*non_blocking=*/true);
  EXPECT_EQ(pageable[777].item<float>(), 777.0f);
}

TEST_F(CudaMemory, ManyThreadsAllocateConcurrently) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 200; ++i) {
        Tensor x = empty({(i % 17 + 1) * 1000}, TensorOptions().device("cuda"));
        (void)x;
      }
    });
  }
  for (auto& th : threads) th.join();
  cuda::synchronize();
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_reserved(), cuda::memory_allocated());
}

}  // namespace
}  // namespace ember
