#pragma once
// Ember's CUDA simulator (-DEMBER_CUDA=SIM): the subset of the CUDA runtime API that Ember calls,
// with CUDA's names, error codes and semantics, implemented on the host (src/cuda_sim). This
// header stands in for the toolkit's only in simulator builds.
#include <cstddef>
#include <cstdint>

#define EMBER_CUDA_SIM 1
#define CUDART_VERSION 13000

#if !defined(EMBER_SIM_API)
#define EMBER_SIM_API __attribute__((visibility("default")))
#endif

// Numeric values as in CUDA's driver_types.h, so logs read the same.
enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorPeerAccessAlreadyEnabled = 704,
  cudaErrorPeerAccessNotEnabled = 705,
  cudaErrorAssert = 710,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999,
};
using cudaError = cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
};

typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;

struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  size_t sharedMemPerBlockOptin;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int multiProcessorCount;
  int major;
  int minor;
};

constexpr unsigned cudaStreamDefault = 0x0;
constexpr unsigned cudaStreamNonBlocking = 0x1;
constexpr unsigned cudaEventDefault = 0x0;
constexpr unsigned cudaEventBlockingSync = 0x1;
constexpr unsigned cudaEventDisableTiming = 0x2;
constexpr unsigned cudaHostAllocDefault = 0x0;

EMBER_SIM_API cudaError_t cudaGetDeviceCount(int* count);
EMBER_SIM_API cudaError_t cudaGetDevice(int* device);
EMBER_SIM_API cudaError_t cudaSetDevice(int device);
EMBER_SIM_API cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
EMBER_SIM_API cudaError_t cudaDeviceSynchronize();
EMBER_SIM_API cudaError_t cudaDeviceReset();
EMBER_SIM_API cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer);
EMBER_SIM_API cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags);
EMBER_SIM_API cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest);
EMBER_SIM_API cudaError_t cudaMemGetInfo(size_t* free, size_t* total);

EMBER_SIM_API cudaError_t cudaMalloc(void** ptr, size_t size);
EMBER_SIM_API cudaError_t cudaFree(void* ptr);
EMBER_SIM_API cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned flags);
EMBER_SIM_API cudaError_t cudaMallocHost(void** ptr, size_t size);
EMBER_SIM_API cudaError_t cudaFreeHost(void* ptr);
EMBER_SIM_API cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind kind);
EMBER_SIM_API cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind,
                                          cudaStream_t stream = nullptr);
EMBER_SIM_API cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                                         size_t n);
EMBER_SIM_API cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src,
                                              int src_device, size_t n,
                                              cudaStream_t stream = nullptr);
EMBER_SIM_API cudaError_t cudaMemset(void* ptr, int value, size_t n);
EMBER_SIM_API cudaError_t cudaMemsetAsync(void* ptr, int value, size_t n,
                                          cudaStream_t stream = nullptr);

EMBER_SIM_API cudaError_t cudaStreamCreate(cudaStream_t* stream);
EMBER_SIM_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags);
EMBER_SIM_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned flags,
                                                       int priority);
EMBER_SIM_API cudaError_t cudaStreamDestroy(cudaStream_t stream);
EMBER_SIM_API cudaError_t cudaStreamSynchronize(cudaStream_t stream);
EMBER_SIM_API cudaError_t cudaStreamQuery(cudaStream_t stream);
EMBER_SIM_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                              unsigned flags = 0);
EMBER_SIM_API cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device);

EMBER_SIM_API cudaError_t cudaEventCreate(cudaEvent_t* event);
EMBER_SIM_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
EMBER_SIM_API cudaError_t cudaEventDestroy(cudaEvent_t event);
EMBER_SIM_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
EMBER_SIM_API cudaError_t cudaEventQuery(cudaEvent_t event);
EMBER_SIM_API cudaError_t cudaEventSynchronize(cudaEvent_t event);
EMBER_SIM_API cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

EMBER_SIM_API cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value);
EMBER_SIM_API cudaError_t cudaGetLastError();
EMBER_SIM_API cudaError_t cudaPeekAtLastError();
EMBER_SIM_API const char* cudaGetErrorString(cudaError_t err);
EMBER_SIM_API const char* cudaGetErrorName(cudaError_t err);
