#pragma once
// The one way a test says it needs a CUDA device (a GPU, or a simulated one on a SIM build):
// without one it skips visibly, with the reason (built without CUDA, no driver, no device).
// Use it at the top of a TEST body or a fixture's SetUp().
#include <gtest/gtest.h>

#include <cstdlib>

#include "ember/cuda.h"

// Skips the current test unless at least one CUDA device is available.
#define EMBER_SKIP_WITHOUT_CUDA()                                                \
  do {                                                                           \
    if (!::ember::cuda::is_available()) {                                        \
      GTEST_SKIP() << "no CUDA device: " << ::ember::cuda::unavailable_reason(); \
    }                                                                            \
  } while (0)

// Skips the current test unless at least `n` CUDA devices are available.
#define EMBER_SKIP_WITHOUT_CUDA_DEVICES(n)                                  \
  do {                                                                      \
    EMBER_SKIP_WITHOUT_CUDA();                                              \
    if (::ember::cuda::device_count() < (n)) {                              \
      GTEST_SKIP() << "needs " << (n) << " CUDA devices, this machine has " \
                   << ::ember::cuda::device_count();                        \
    }                                                                       \
  } while (0)

// Skips the current test when the CUDA caching allocator is off (EMBER_NO_CUDA_MEMORY_CACHING:
// compute-sanitizer runs and CI's no-caching pass), for what only holds with the cache on.
#define EMBER_SKIP_WITHOUT_CUDA_CACHING()                                               \
  do {                                                                                  \
    if (std::getenv("EMBER_NO_CUDA_MEMORY_CACHING")) {                                  \
      GTEST_SKIP() << "EMBER_NO_CUDA_MEMORY_CACHING is set: this test needs the cache"; \
    }                                                                                   \
  } while (0)
