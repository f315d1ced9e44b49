#pragma once
// cuBLAS workspaces taken from the caching allocator, one per (device, stream), as PyTorch gives
// cuBLAS one per (handle, stream): the memory shows in memory_stats(), an out-of-memory while
// taking it frees the cache and retries as for a tensor, and empty_cache() gives it back. Without
// one, cuBLAS uses a pool of its own outside the allocator's accounting (and, from CUDA 12.2,
// may cudaMallocAsync behind its back).
#include <cstddef>
#include <memory>
#include <vector>

#include "ember/allocator.h"
#include "ember/macros.h"

namespace ember::cuda {

struct CublasWorkspace {
  DataPtr data;  // a block of `stream`'s pool; null when the size is 0
  size_t bytes = 0;
};

// The workspace of `stream` (a cudaStream_t) on `device`, taken on first use. The caller keeps
// the pointer until its cuBLAS call is queued, so empty_cache() on another thread cannot free
// it in between; after that, stream order protects it (the block returns to its own stream's
// pool, and releasing the segment waits for the device).
std::shared_ptr<const CublasWorkspace> cublas_workspace(int device, void* stream);

// Drops every workspace; empty_cache() calls this before releasing cached segments.
void release_cublas_workspaces();

// What is held now, for tests and memory reports.
struct CublasWorkspaceInfo {
  int device;
  const void* stream;
  const void* ptr;
  size_t bytes;
};
EMBER_API std::vector<CublasWorkspaceInfo> cublas_workspaces();

// Bytes of each workspace on `device`: CUBLAS_WORKSPACE_CONFIG, else PyTorch's default for the
// device's architecture (32 MiB on sm_90; 64 KiB on simulated devices). A bad
// CUBLAS_WORKSPACE_CONFIG throws ValueError.
EMBER_API size_t cublas_workspace_size(int device);

}  // namespace ember::cuda
