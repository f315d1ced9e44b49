// ember::cuda runtime queries: availability (never throws), devices, properties, synchronize.
#include <chrono>
#include <mutex>

#include "core/device_audit.h"
#include "cuda/cuda_internal.h"
#include "ember/ops.h"

namespace ember::cuda {
namespace {

struct Availability {
  int count = 0;
  std::string reason;
};

const Availability& availability() {
  static const Availability a = [] {
    Availability r;
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err == cudaSuccess && n > 0) {
      r.count = n;
      return r;
    }
    (void)cudaGetLastError();  // not sticky: clear it so later calls start clean
    switch (err) {
      case cudaSuccess:
      case cudaErrorNoDevice:
        r.reason = "no CUDA device was found (the NVIDIA driver is loaded but sees no GPU)";
        break;
      case cudaErrorInsufficientDriver:
        r.reason =
            "no NVIDIA driver: the driver is missing or older than this CUDA runtime needs "
            "(cudaErrorInsufficientDriver)";
        break;
      default:
        r.reason = ::ember::detail::str_cat(
            "the CUDA runtime failed to initialise: ", cudaGetErrorString(err), " (",
            cudaGetErrorName(err), ")");
    }
    return r;
  }();
  return a;
}

[[noreturn]] void unavailable(const std::string& what) {
  throw DeviceError(
      ::ember::detail::str_cat(what, ": CUDA is not available: ", availability().reason));
}

// Checks an ordinal as the int the caller gave, before anything narrows it to a DeviceIndex
// (set_device(257) was cuda:1, memory_stats(258) read past the allocator's device table).
void check_ordinal(long long ordinal) {
  const int n = device_count();
  if (n == 0) unavailable(::ember::detail::str_cat("Cannot use device cuda:", ordinal));
  if (ordinal >= 0 && ordinal < n) return;
  throw DeviceError(::ember::detail::str_cat(
      "Invalid device cuda:", ordinal, ": CUDA device ordinal ", ordinal,
      " is out of range; this machine has ", n, " CUDA device", n == 1 ? "" : "s", " (cuda:0",
      n > 1 ? ::ember::detail::str_cat(" to cuda:", n - 1) : std::string(), ")"));
}

}  // namespace

namespace detail {

void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  (void)cudaGetLastError();
  std::string msg =
      ::ember::detail::str_cat("CUDA error: ", cudaGetErrorString(err), " (", cudaGetErrorName(err),
                               ") from ", expr, " at ", file, ":", line);
  if (err == cudaErrorMemoryAllocation) throw OutOfMemoryError(msg);
  throw Error(msg);
}

void require_available(const char* caller) {
  if (!is_available()) unavailable(caller);
}

int resolve_device(int device) {
  if (device == -1) return current_device();
  check_ordinal(device);
  return device;
}

}  // namespace detail

bool is_available() {
  return availability().count > 0;
}
int device_count() {
  return availability().count;
}
std::string unavailable_reason() {
  return availability().reason;
}

void check_device(Device device) {
  if (!device.is_cuda()) return;
  if (!device.has_index()) {
    if (device_count() == 0) unavailable(::ember::detail::str_cat("Cannot use device ", device));
    return;
  }
  check_ordinal(device.index());
}

int current_device() {
  if (!is_available()) unavailable("current_device");
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

// -1 keeps the current device, as torch.cuda.set_device(-1) does.
void set_device(int device) {
  EMBER_CUDA_CHECK(cudaSetDevice(detail::resolve_device(device)));
}

DeviceProperties get_device_properties(int device) {
  if (!is_available()) unavailable("get_device_properties");
  device = detail::resolve_device(device);
  cudaDeviceProp p{};
  EMBER_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  DeviceProperties r;
  r.name = p.name;
  r.total_memory = p.totalGlobalMem;
  r.multi_processor_count = p.multiProcessorCount;
  r.major = p.major;
  r.minor = p.minor;
  return r;
}

std::string get_device_name(int device) {
  return get_device_properties(device).name;
}

void synchronize(int device) {
  if (!is_available()) unavailable("synchronize");
  DeviceGuard guard(detail::resolve_device(device));
  const auto t0 = std::chrono::steady_clock::now();
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
  audit::record_sync(
      /*implicit=*/false,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
      "cudaDeviceSynchronize");
}

std::pair<size_t, size_t> mem_get_info(int device) {
  if (!is_available()) unavailable("mem_get_info");
  DeviceGuard guard(detail::resolve_device(device));
  size_t free = 0, total = 0;
  EMBER_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return {free, total};
}

// One Philox generator serves every device (random kernels take seed and offset from it), so
// seeding CUDA seeds it.
void manual_seed(uint64_t seed) {
  ::ember::manual_seed(seed);
}
void manual_seed_all(uint64_t seed) {
  ::ember::manual_seed(seed);
}

}  // namespace ember::cuda
