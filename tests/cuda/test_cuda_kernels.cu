// The CUDA execution model as Ember's kernels rely on it, checked with small kernels launched
// through src/cuda/launch.cuh: built-in indices, __syncthreads, shared memory (static and
// dynamic), warp shuffles and votes, atomics, launch limits and their error codes, and stream
// ordering. Compiled by nvcc on a GPU build and by the host compiler against the simulator
// (-DEMBER_CUDA=SIM), so the simulator is held to what the hardware does.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "cuda/launch.cuh"

namespace {

using ember::cuda::launch_kernel;
using ember::cuda::LaunchConfig;

// ---- kernels ----
__global__ void write_indices(unsigned* out) {
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
  const unsigned i = block * per_block + thread;
  out[4 * i + 0] = threadIdx.x + 100 * threadIdx.y + 10000 * threadIdx.z;
  out[4 * i + 1] = blockIdx.x + 100 * blockIdx.y + 10000 * blockIdx.z;
  out[4 * i + 2] = blockDim.x + 100 * blockDim.y + 10000 * blockDim.z;
  out[4 * i + 3] = gridDim.x + 100 * gridDim.y + 10000 * gridDim.z;
}

// Block sum by a shared-memory tree: wrong without __syncthreads between the levels.
__global__ void block_sum(const int* in, int* out) {
  __shared__ int sh[256];
  sh[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

// Reverses a block through dynamic shared memory.
__global__ void reverse_dynamic(const float* in, float* out) {
  EMBER_DYNAMIC_SHARED(float, buf);
  const unsigned n = blockDim.x;
  buf[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = buf[n - 1 - threadIdx.x];
}

__global__ void big_dynamic(float* out) {
  EMBER_DYNAMIC_SHARED(float, buf);
  buf[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x];
}

// Per lane: xor-reduced sum, down-shuffle, up-shuffle, broadcast of lane 3 within width 8,
// ballot of odd lanes, any/all.
__global__ void warp_ops(const int* in, int* out) {
  const int lane = threadIdx.x % 32;
  const int v = in[threadIdx.x];
  int sum = v;
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const int down = __shfl_down_sync(0xffffffffu, v, 1);
  const int up = __shfl_up_sync(0xffffffffu, v, 2);
  const int idx8 = __shfl_sync(0xffffffffu, v, 3, 8);
  const unsigned ballot = __ballot_sync(0xffffffffu, lane & 1);
  const int any = __any_sync(0xffffffffu, v == 7);
  const int all = __all_sync(0xffffffffu, v >= 0);
  const double d = __shfl_xor_sync(0xffffffffu, static_cast<double>(v) + 0.5, 1);
  int* o = out + threadIdx.x * 8;
  o[0] = sum;
  o[1] = down;
  o[2] = up;
  o[3] = idx8;
  o[4] = static_cast<int>(ballot);
  o[5] = any;
  o[6] = all;
  o[7] = static_cast<int>(d * 2);
}

__global__ void atomic_histogram(const int* in, int n, unsigned* bins, float* total) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&bins[in[i] % 4], 1u);
    atomicAdd(total, 0.5f);
  }
}

__global__ void add_one(float* p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] += 1.0f;
}

__global__ void times_two(float* p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] *= 2.0f;
}

__global__ void noop(int*) {}

// ---- helpers ----
class CudaKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
      (void)cudaGetLastError();
      GTEST_SKIP() << "no CUDA device (neither a GPU nor the simulator)";
    }
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  }
  template <typename T>
  T* device_copy(const std::vector<T>& host) {
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, host.size() * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
              cudaSuccess);
    allocations_.push_back(p);
    return static_cast<T*>(p);
  }
  template <typename T>
  std::vector<T> host_copy(const T* p, size_t n) {
    std::vector<T> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
  void TearDown() override {
    for (void* p : allocations_) cudaFree(p);
  }
  std::vector<void*> allocations_;
};

TEST_F(CudaKernels, BuiltInIndicesCoverA3DGridOf3DBlocks) {
  const dim3 grid(3, 2, 2), block(4, 3, 2);
  const unsigned total = 3 * 2 * 2 * 4 * 3 * 2;
  unsigned* out = device_copy(std::vector<unsigned>(4 * total, 0));
  launch_kernel(EMBER_KERNEL(write_indices), {grid, block}, out);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  auto h = host_copy(out, 4 * total);
  unsigned i = 0;
  for (unsigned bz = 0; bz < 2; ++bz)
    for (unsigned by = 0; by < 2; ++by)
      for (unsigned bx = 0; bx < 3; ++bx)
        for (unsigned tz = 0; tz < 2; ++tz)
          for (unsigned ty = 0; ty < 3; ++ty)
            for (unsigned tx = 0; tx < 4; ++tx, ++i) {
              ASSERT_EQ(h[4 * i + 0], tx + 100 * ty + 10000 * tz) << i;
              ASSERT_EQ(h[4 * i + 1], bx + 100 * by + 10000 * bz) << i;
              ASSERT_EQ(h[4 * i + 2], 4u + 300u + 20000u);
              ASSERT_EQ(h[4 * i + 3], 3u + 200u + 20000u);
            }
}

TEST_F(CudaKernels, SyncthreadsOrdersSharedMemoryTreeReduction) {
  const int blocks = 5;
  std::vector<int> in(blocks * 256);
  std::iota(in.begin(), in.end(), 1);
  int* d_in = device_copy(in);
  int* d_out = device_copy(std::vector<int>(blocks, 0));
  launch_kernel(EMBER_KERNEL(block_sum), {blocks, 256}, d_in, d_out);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  auto h = host_copy(d_out, blocks);
  for (int b = 0; b < blocks; ++b) {
    long expect = 0;
    for (int i = 0; i < 256; ++i) expect += in[b * 256 + i];
    EXPECT_EQ(h[b], expect) << "block " << b;
  }
}

TEST_F(CudaKernels, DynamicSharedMemoryAndItsLimit) {
  std::vector<float> in(128);
  std::iota(in.begin(), in.end(), 0.0f);
  float* d_in = device_copy(in);
  float* d_out = device_copy(std::vector<float>(1024, 0.0f));
  launch_kernel(EMBER_KERNEL(reverse_dynamic), {1, 128, 128 * sizeof(float)}, d_in, d_out);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  auto h = host_copy(d_out, 128);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(h[i], 127.0f - i);

  // More than 48 KiB of dynamic shared memory needs the opt-in attribute.
  const size_t big = 64 * 1024;
  launch_kernel(EMBER_KERNEL(big_dynamic), {1, 1024, big}, d_out);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  ASSERT_EQ(
      cudaFuncSetAttribute(reinterpret_cast<const void*>(&big_dynamic),
                           cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(big)),
      cudaSuccess);
  launch_kernel(EMBER_KERNEL(big_dynamic), {1, 1024, big}, d_out);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  auto h2 = host_copy(d_out, 1024);
  EXPECT_EQ(h2[0], 1.0f);
  EXPECT_EQ(h2[1023], 1.0f);
}

TEST_F(CudaKernels, WarpShufflesAndVotesRunInLockstep) {
  std::vector<int> in(64);
  std::iota(in.begin(), in.end(), 0);
  int* d_in = device_copy(in);
  int* d_out = device_copy(std::vector<int>(64 * 8, -1));
  launch_kernel(EMBER_KERNEL(warp_ops), {1, 64}, d_in, d_out);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  auto h = host_copy(d_out, 64 * 8);
  for (int t = 0; t < 64; ++t) {
    const int lane = t % 32, base = t - lane;
    const int* o = &h[t * 8];
    int warp_sum = 0;
    for (int l = 0; l < 32; ++l) warp_sum += base + l;
    EXPECT_EQ(o[0], warp_sum) << t;
    EXPECT_EQ(o[1], lane + 1 < 32 ? t + 1 : t) << t;  // out of range: own value
    EXPECT_EQ(o[2], lane >= 2 ? t - 2 : t) << t;
    EXPECT_EQ(o[3], base + (lane / 8) * 8 + 3) << t;  // lane 3 of each 8-lane segment
    EXPECT_EQ(static_cast<unsigned>(o[4]), 0xaaaaaaaau) << t;
    EXPECT_EQ(o[5], base == 0 ? 1 : 0) << t;  // only warp 0 holds a 7
    EXPECT_EQ(o[6], 1) << t;
    EXPECT_EQ(o[7], 2 * (t ^ 1) + 1) << t;  // doubles shuffle whole
  }
}

TEST_F(CudaKernels, AtomicsFromManyThreadsAreExact) {
  const int n = 10000;
  std::vector<int> in(n);
  std::iota(in.begin(), in.end(), 0);
  int* d_in = device_copy(in);
  unsigned* bins = device_copy(std::vector<unsigned>(4, 0));
  float* total = device_copy(std::vector<float>(1, 0.0f));
  launch_kernel(EMBER_KERNEL(atomic_histogram), {8, 128}, d_in, n, bins, total);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  auto h = host_copy(bins, 4);
  for (int b = 0; b < 4; ++b) EXPECT_EQ(h[b], static_cast<unsigned>(n / 4));
  EXPECT_EQ(host_copy(total, 1)[0], 0.5f * n);  // exact: sums of halves below 2^24
}

// CUDA 13 on an H100 (driver 580) answers every one of these with cudaErrorInvalidValue, not
// the cudaErrorInvalidConfiguration older runtimes gave; the simulator answers as the GPU did.
TEST_F(CudaKernels, LaunchLimitsGiveCudasErrorCodes) {
  int* p = device_copy(std::vector<int>(1, 0));
  launch_kernel(EMBER_KERNEL(noop), {1, 1025}, p);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  launch_kernel(EMBER_KERNEL(noop), {1, dim3(1, 1, 65)}, p);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  launch_kernel(EMBER_KERNEL(noop), {dim3(1, 65536, 1), 1}, p);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  launch_kernel(EMBER_KERNEL(noop), {0, 32}, p);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  // Not sticky: the next launch works and the error was cleared by reading it.
  launch_kernel(EMBER_KERNEL(noop), {dim3(1, 65535, 1), 1024}, p);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(CudaKernels, StreamsRunInOrderAndEventsOrderThemAcrossStreams) {
  const int n = 1 << 16;
  float* d = device_copy(std::vector<float>(n, 1.0f));
  cudaStream_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t done_a = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&done_a, cudaEventDisableTiming), cudaSuccess);
  for (int rep = 0; rep < 3; ++rep) {
    launch_kernel(EMBER_KERNEL(add_one), {64, 256, 0, a}, d, n);  // (x + 1) then * 2
    ASSERT_EQ(cudaEventRecord(done_a, a), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(b, done_a, 0), cudaSuccess);
    launch_kernel(EMBER_KERNEL(times_two), {64, 256, 0, b}, d, n);
    cudaEvent_t done_b = nullptr;
    ASSERT_EQ(cudaEventCreateWithFlags(&done_b, cudaEventDisableTiming), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(done_b, b), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(a, done_b, 0), cudaSuccess);
    ASSERT_EQ(cudaEventDestroy(done_b), cudaSuccess);
  }
  ASSERT_EQ(cudaStreamSynchronize(a), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(b), cudaSuccess);
  ASSERT_EQ(cudaStreamQuery(b), cudaSuccess);
  auto h = host_copy(d, n);
  // 1 -> 4 -> 10 -> 22
  EXPECT_EQ(h[0], 22.0f);
  EXPECT_EQ(h[n - 1], 22.0f);
  EXPECT_EQ(cudaEventDestroy(done_a), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(a), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(b), cudaSuccess);
}

TEST_F(CudaKernels, EventsTimeAndRefuseUntimedOnes) {
  cudaEvent_t start = nullptr, end = nullptr, untimed = nullptr;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&end), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming), cudaSuccess);
  float* d = device_copy(std::vector<float>(4096, 0.0f));
  ASSERT_EQ(cudaEventRecord(start, nullptr), cudaSuccess);
  launch_kernel(EMBER_KERNEL(add_one), {16, 256}, d, 4096);
  ASSERT_EQ(cudaEventRecord(end, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(untimed, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(end), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, end), cudaSuccess);
  EXPECT_GE(ms, 0.0f);
  ASSERT_EQ(cudaEventSynchronize(untimed), cudaSuccess);
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
  (void)cudaGetLastError();
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  cudaEventDestroy(untimed);
}

TEST_F(CudaKernels, KernelOnAStreamOfAnotherDeviceIsRefused) {
  int count = 0;
  cudaGetDeviceCount(&count);
  if (count < 2) GTEST_SKIP() << "needs two devices";
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  cudaStream_t s1 = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  int* p = device_copy(std::vector<int>(1, 0));
  launch_kernel(EMBER_KERNEL(noop), {1, 1, 0, s1}, p);
  EXPECT_NE(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s1), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

}  // namespace
