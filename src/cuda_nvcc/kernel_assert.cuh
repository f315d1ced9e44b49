#pragma once
// EMBER_KERNEL_ASSERT(cond, "what"): a device-side check that stays on in release builds, as
// PyTorch's CUDA_KERNEL_ASSERT. A failure stops the kernel and leaves the sticky
// cudaErrorAssert ("device-side assert triggered"): the CUDA context is unusable afterwards, as
// in PyTorch, but the check costs no host synchronisation. The simulator's version is
// src/cuda_sim/backend/kernel_assert.cuh; CMake picks one.
#include <assert.h>

// Declared here as well: glibc's <assert.h> hides it under NDEBUG (release builds), and the
// device runtime provides it for device code.
extern "C" __host__ __device__ void __assert_fail(const char* assertion, const char* file,
                                                  unsigned int line, const char* function) noexcept
    __attribute__((__noreturn__));
#define EMBER_KERNEL_ASSERT(cond, what)                                                    \
  do {                                                                                     \
    if (!(cond))                                                                           \
      __assert_fail(what ": " #cond, __FILE__, static_cast<unsigned>(__LINE__), __func__); \
  } while (0)
