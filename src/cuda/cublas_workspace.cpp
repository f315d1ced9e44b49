// One cuBLAS workspace per (device, stream), from the caching allocator (cublas_workspace.h).
#include "cuda/cublas_workspace.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#include "cuda/cuda_internal.h"
#include "cuda/device_allocator.h"
#include "cuda_policy/cublas_workspace_config.h"

namespace ember::cuda {
namespace {

constexpr size_t kSimulatedDeviceDefault = 64 << 10;

struct Workspaces {
  std::mutex mutex;
  std::map<std::pair<int, void*>, std::shared_ptr<const CublasWorkspace>> by_stream;
  std::map<int, size_t> size_by_device;  // resolved once per device
};

// Leaked on purpose, as the allocators: workspaces must not outlive them.
Workspaces& workspaces() {
  static auto* w = new Workspaces;
  return *w;
}

}  // namespace

size_t cublas_workspace_size(int device) {
  device = detail::resolve_device(device);
  Workspaces& w = workspaces();
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    if (auto it = w.size_by_device.find(device); it != w.size_by_device.end()) return it->second;
  }
  const DeviceProperties p = get_device_properties(device);
  // Simulated devices (which report sm_90) default to 64 KiB: their memory protection costs
  // time per live page on every kernel (docs/cuda.md), and their GEMMs need no workspace.
  const size_t fallback = is_simulated()
                              ? kSimulatedDeviceDefault
                              : cuda_policy::default_cublas_workspace_size(p.major, p.minor);
  // A bad value throws here, on every call, and is never cached.
  const size_t bytes =
      cuda_policy::parse_cublas_workspace_config(std::getenv("CUBLAS_WORKSPACE_CONFIG"), fallback);
  std::lock_guard<std::mutex> lock(w.mutex);
  w.size_by_device.emplace(device, bytes);
  return bytes;
}

std::shared_ptr<const CublasWorkspace> cublas_workspace(int device, void* stream) {
  Workspaces& w = workspaces();
  const auto key = std::make_pair(device, stream);
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    if (auto it = w.by_stream.find(key); it != w.by_stream.end()) return it->second;
  }
  // Taken outside the lock: an out-of-memory here frees the cache and retries, then throws
  // OutOfMemoryError, as for a tensor.
  auto ws = std::make_shared<CublasWorkspace>();
  ws->bytes = cublas_workspace_size(device);
  if (ws->bytes > 0) ws->data = allocate_on_stream(device, ws->bytes, stream);
  std::lock_guard<std::mutex> lock(w.mutex);
  // Another thread may have made one for the same stream meanwhile: keep the first.
  return w.by_stream.emplace(key, std::move(ws)).first->second;
}

void release_cublas_workspaces() {
  Workspaces& w = workspaces();
  std::map<std::pair<int, void*>, std::shared_ptr<const CublasWorkspace>> dropped;
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    dropped.swap(w.by_stream);
  }
  // Freed here (outside the lock), or by the last call still holding one.
}

std::vector<CublasWorkspaceInfo> cublas_workspaces() {
  Workspaces& w = workspaces();
  std::lock_guard<std::mutex> lock(w.mutex);
  std::vector<CublasWorkspaceInfo> out;
  for (const auto& [key, ws] : w.by_stream) {
    out.push_back({key.first, key.second, ws->data.get(), ws->bytes});
  }
  return out;
}

}  // namespace ember::cuda
