// What the CUDA simulator (-DEMBER_CUDA=SIM) adds over a GPU, checked through Ember's own API:
// its devices and their capacity, poisoned memory, and the faults it reports by name (host
// code dereferencing device memory, kernels given freed or another device's memory). Faults
// end the process (as a segfault would) or leave a sticky error, so they run in death tests.
// Skipped on real GPUs and CPU-only builds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ember/cuda.h"
#include "ember/nn.h"
#include "ember/ops.h"
#include "support/cuda_skip.h"
#if defined(EMBER_TEST_WITH_SIM)
#include "cuda_sim.h"
#endif

namespace ember {
namespace {

// Bodies of the death tests (a function each: commas inside a macro argument would split it).
void read_device_memory_on_host(const Tensor& t) {
  volatile float v = t.data_ptr<float>()[0];
  (void)v;
}

[[noreturn]] void launch_on_freed_block() {
  void* raw = nullptr;
  {
    Tensor t = ones({1 << 20}, TensorOptions().device("cuda"));  // 4 MiB: the large pool
    raw = t.data_ptr();
  }  // back to the caching allocator
  Tensor stale = from_blob(raw, {1 << 20}, TensorOptions().device("cuda"));
  try {
    Tensor y = stale.sum();  // its 4-byte output comes from the small pool, not the stale block
    cuda::synchronize();
  } catch (const Error& e) {
    std::fprintf(stderr, "caught: %s\n", e.what());
    std::exit(0);
  }
  std::exit(1);
}

[[noreturn]] void fault_on_cuda0_only() {
  Tensor a = ones({8}, TensorOptions().device("cuda:1"));
  Tensor stale = from_blob(a.data_ptr(), {8}, TensorOptions().device("cuda:0"));
  bool first = false, second = false;
  try {
    Tensor y = stale * 2;  // a cuda:1 pointer in a cuda:0 kernel
  } catch (const Error&) {
    first = true;
  }
  try {
    Tensor y = ones({8}, TensorOptions().device("cuda:0")).sum();
    (void)y.item<float>();
  } catch (const Error& e) {
    second = std::string(e.what()).find("illegal memory access") != std::string::npos;
  }
  const float s = ones({8}, TensorOptions().device("cuda:1")).sum().item<float>();  // unaffected
  std::exit(first && second && s == 8.0f ? 0 : 1);
}

void read_cuda_freed_memory() {
  setenv("EMBER_NO_CUDA_MEMORY_CACHING", "1", 1);  // before this process's first allocation
  float* raw = nullptr;
  {
    Tensor t = ones({1024}, TensorOptions().device("cuda"));
    raw = t.data_ptr<float>();
  }
  cuda::synchronize();
  volatile float v = raw[0];
  (void)v;
}

class CudaSim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available() || !cuda::is_simulated())
      GTEST_SKIP() << "not a simulated CUDA build (EMBER_CUDA=SIM)";
    // Death tests re-run the test binary: safe with the simulator's worker threads.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

TEST_F(CudaSim, DevicesSayTheyAreSimulatedAndHaveTheirCapacity) {
  const char* n = std::getenv("EMBER_SIM_DEVICES");
  EXPECT_EQ(cuda::device_count(), n ? std::atoi(n) : 2);
  EXPECT_NE(cuda::get_device_name(0).find("simulated"), std::string::npos);
  auto [free, total] = cuda::mem_get_info(0);
  if (!std::getenv("EMBER_SIM_DEVICE_MEMORY")) EXPECT_EQ(total, size_t(2) << 30);
  EXPECT_LE(free, total);
  EXPECT_EQ(cuda::get_device_properties(0).total_memory, total);
}

TEST_F(CudaSim, AllocationsCountAgainstTheDeviceAndOomRecovers) {
  cuda::empty_cache();
  auto [free_before, total] = cuda::mem_get_info(0);
  {
    Tensor t = empty({64 << 20}, TensorOptions().device("cuda"));  // 256 MiB
    EXPECT_LE(cuda::mem_get_info(0).first, free_before - (256u << 20));
  }
  cuda::empty_cache();
  EXPECT_EQ(cuda::mem_get_info(0).first, free_before);
  const int64_t too_many = static_cast<int64_t>(total / 4 + (1 << 20));
  try {
    Tensor t = empty({too_many}, TensorOptions().device("cuda"));
    FAIL() << "allocated more than the device holds";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA out of memory"), std::string::npos) << e.what();
  }
  Tensor ok = ones({1024}, TensorOptions().device("cuda"));  // the device goes on working
  EXPECT_EQ(ok.sum().item<float>(), 1024.0f);
}

TEST_F(CudaSim, NeverWrittenDeviceMemoryReadsAsPoison) {
  cuda::empty_cache();  // fresh segments, not a reused block
  Tensor t = empty({16}, TensorOptions().device("cuda"));
  Tensor h = t.cpu();
  for (int i = 0; i < 16; ++i) EXPECT_TRUE(std::isnan(h.data_ptr<float>()[i])) << i;
}

TEST_F(CudaSim, HostDereferenceOfDevicePointerIsReported) {
  Tensor t = ones({4}, TensorOptions().device("cuda:1"));
  cuda::synchronize(1);
  EXPECT_DEATH(read_device_memory_on_host(t),
               "host code \\(not a kernel\\) accessed address .* memory of cuda:1 .*copy the "
               "tensor to the CPU");
}

TEST_F(CudaSim, KernelGivenFreedMemoryIsReportedByName) {
  EXPECT_EXIT(launch_on_freed_block(), ::testing::ExitedWithCode(0),
              "kernel 'reduce_.*_kernel<.*>' launched on cuda:0 was given pointer .*freed.*use "
              "after free(.|\n)*caught: CUDA error: an illegal memory access was encountered");
}

TEST_F(CudaSim, StickyErrorPersistsOnItsDeviceOnly) {
  EMBER_SKIP_WITHOUT_CUDA_DEVICES(2);
  EXPECT_EXIT(fault_on_cuda0_only(), ::testing::ExitedWithCode(0), "memory of cuda:1");
}

TEST_F(CudaSim, CudaFreedMemoryStaysInaccessible) {
  EXPECT_DEATH(read_cuda_freed_memory(), "accessed address .*released by cudaFree.*use after free");
}

#if defined(EMBER_TEST_WITH_SIM)
// A training step's index work (gather, index_select, cross_entropy forward and backward, the
// scatter_add of gather's gradient) queues kernels and never waits for the device.
TEST_F(CudaSim, IndexOpsInATrainingStepNeverWaitForTheDevice) {
  // Without the cache every free is a cudaFree, which waits (as on a GPU).
  EMBER_SKIP_WITHOUT_CUDA_CACHING();
  const Device d("cuda:0");
  Tensor logits = randn({64, 10}).to(d).requires_grad_();
  Tensor target = randint(0, 10, {64}).to(d);
  Tensor table = randn({100, 16}).to(d).requires_grad_();
  Tensor rows = randint(0, 100, {32}).to(d);
  Tensor cols = randint(0, 16, {32, 4}).to(d);
  cuda::synchronize();
  const uint64_t waits = cuda_sim::host_waits(), kernels = cuda_sim::kernels_completed();
  Tensor emb = index_select(table, 0, rows);
  Tensor picked = gather(emb, 1, cols);
  Tensor loss = nn::functional::cross_entropy(logits, target) + picked.sum();
  loss.backward();
  EXPECT_EQ(cuda_sim::host_waits(), waits) << "a host sync in the index ops";
  cuda::synchronize();
  EXPECT_GT(cuda_sim::kernels_completed(), kernels + 5);
  EXPECT_TRUE(table.grad().defined());
  EXPECT_EQ(table.grad().sum().item<float>(), 32.0f * 4.0f);  // each picked element once
}
#endif

}  // namespace
}  // namespace ember
