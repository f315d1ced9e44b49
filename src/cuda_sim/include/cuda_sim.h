#pragma once
// The simulator's own API beyond CUDA's: kernel launches (used by launch_kernel, through
// src/cuda_sim/backend/device_launch.cuh), hooks for a caching allocator, and what a program or
// test may ask of it.
#include <functional>
#include <string>
#include <vector>

#include "cuda_runtime_api.h"

namespace cuda_sim {

struct KernelLaunch {
  std::string name;            // the kernel as written at the launch site, for reports
  const void* func = nullptr;  // identity, for cudaFuncSetAttribute
  dim3 grid, block;
  size_t shared_bytes = 0;
  cudaStream_t stream = nullptr;
  std::function<void()> body;         // one GPU thread's work: calls the kernel
  std::vector<const void*> pointers;  // pointer arguments, checked against the launch's device
  // cudaLaunchKernel of a kernel loaded with cudaLibraryLoadData (RawKernel). On CUDA 13 with an
  // H100 such a launch over the limits fails with cudaErrorInvalidConfiguration, while a compiled
  // kernel's <<<>>> launch fails with cudaErrorInvalidValue; the simulator answers the same.
  bool library_kernel = false;
};

// Queues `k` on its stream as kernel<<<grid, block, shared_bytes, stream>>> does: a bad
// configuration is returned (and kept for cudaGetLastError); faults become sticky errors.
EMBER_SIM_API cudaError_t launch(KernelLaunch k);

// A caching allocator tells the simulator when a block of a cudaMalloc'd segment is handed out
// and when it becomes free again (then it is poisoned in `stream` order, and kernels given a
// pointer into it are reported).
EMBER_SIM_API void note_block_allocated(const void* ptr, size_t size);
EMBER_SIM_API void note_block_freed(const void* ptr, size_t size, cudaStream_t stream);

// What the simulator knows about an address ("cuda:1 memory, allocation of 4096 bytes at ...").
EMBER_SIM_API std::string describe_pointer(const void* ptr);
// The byte freed and never-initialised device memory is filled with (0xff: NaN for floats).
constexpr unsigned char kPoisonByte = 0xff;
// Number of kernels that have run to completion (all devices), for tests.
EMBER_SIM_API uint64_t kernels_completed();
// The last GEMM the calling host thread queued through cuBLAS: its device and stream, and the
// workspace bound to the handle then (user_workspace false: cuBLAS's default pool, as after
// cublasSetStream). For tests that check which workspace a library gave cuBLAS on which stream.
struct CublasGemmRecord {
  int device = -1;
  cudaStream_t stream = nullptr;
  bool user_workspace = false;
  const void* workspace = nullptr;
  size_t workspace_bytes = 0;
};
EMBER_SIM_API CublasGemmRecord last_cublas_gemm();

// The last cuDNN convolution call the calling host thread queued (cudnnConvolutionForward,
// ...BackwardData, ...BackwardFilter; searches queue them too): the algorithm, the workspace
// given, the descriptor's math type and the handle's stream. For tests of what Ember chose.
struct CudnnCallRecord {
  const char* call = nullptr;
  int algo = -1;
  size_t workspace_bytes = 0;
  int math_type = -1;
  cudaStream_t stream = nullptr;
};
EMBER_SIM_API CudnnCallRecord last_cudnn_call();
// Number of cudnnFind*AlgorithmEx searches (all threads), for tests of the benchmark cache.
EMBER_SIM_API uint64_t cudnn_searches();

// Number of times a host thread waited for device work (stream/event/device synchronize,
// blocking copies, cudaFree), for tests that prove a code path never syncs.
EMBER_SIM_API uint64_t host_waits();

}  // namespace cuda_sim
