#pragma once
// EMBER_CUDA_ALLOC_CONF and EMBER_NO_CUDA_MEMORY_CACHING: the caching allocator's settings,
// spelled as PyTorch's PYTORCH_CUDA_ALLOC_CONF ("max_split_size_mb:128,
// garbage_collection_threshold:0.6").
#include <cstddef>
#include <cstdint>
#include <string>

#include "ember/macros.h"

namespace ember::cuda_policy {

struct EMBER_API AllocatorConfig {
  // Blocks at least this large are never split (and not cached for smaller requests).
  size_t max_split_size = SIZE_MAX;
  // With a memory fraction set, start freeing old cached blocks once usage passes this share of
  // the allowed memory; 0 disables.
  double garbage_collection_threshold = 0.0;
  // false: every free goes straight back to the device (EMBER_NO_CUDA_MEMORY_CACHING=1).
  bool caching = true;

  // Parses "key:value,key:value"; throws ValueError naming the option and the bad value.
  static AllocatorConfig parse(const std::string& conf);
  // Reads EMBER_CUDA_ALLOC_CONF and EMBER_NO_CUDA_MEMORY_CACHING.
  static AllocatorConfig from_env();
};

}  // namespace ember::cuda_policy
