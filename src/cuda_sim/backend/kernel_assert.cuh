#pragma once
// EMBER_KERNEL_ASSERT(cond, "what") on simulated devices: a failure stops the kernel and leaves
// the sticky cudaErrorAssert ("device-side assert triggered"), as on a GPU
// (src/cuda_nvcc/kernel_assert.cuh, where the check is explained). CMake picks one.
#include "cuda_sim_device.h"

#define EMBER_KERNEL_ASSERT(cond, what)                                               \
  do {                                                                                \
    if (!(cond)) ::cuda_sim::device_assert_fail(what ": " #cond, __FILE__, __LINE__); \
  } while (0)
