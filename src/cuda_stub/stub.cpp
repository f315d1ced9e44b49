// Linked instead of src/cuda when Ember is built without CUDA: every entry point answers
// "not available" and says why, and nothing aborts.
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/cuda.h"

namespace ember {
namespace {
const char* kReason =
    "Ember was built without CUDA support (configure with -DEMBER_CUDA=ON on a machine with the "
    "CUDA toolkit)";
[[noreturn]] void unavailable(const char* what) {
  throw DeviceError(detail::str_cat(what, ": CUDA is not available: ", kReason));
}
}  // namespace

Backend& cuda_backend() { unavailable("Cannot use a CUDA device"); }
Allocator* pinned_host_allocator() { unavailable("Cannot allocate pinned memory"); }

namespace cuda {
bool is_available() { return false; }
int device_count() { return 0; }
std::string unavailable_reason() { return kReason; }
void check_device(Device device) {
  if (device.is_cuda()) {
    throw DeviceError(detail::str_cat("Cannot use device ", device, ": CUDA is not available: ",
                                      kReason));
  }
}
std::string get_device_name(int) { unavailable("get_device_name"); }
DeviceProperties get_device_properties(int) { unavailable("get_device_properties"); }
int current_device() { unavailable("current_device"); }
void set_device(int) { unavailable("set_device"); }
void synchronize(int) { unavailable("synchronize"); }
std::pair<size_t, size_t> mem_get_info(int) { unavailable("mem_get_info"); }
// Seeding CUDA without CUDA is a no-op in PyTorch too (torch.cuda.manual_seed_all is lazy).
void manual_seed(uint64_t) {}
void manual_seed_all(uint64_t) {}
void empty_cache() {}
size_t memory_allocated(int) { return 0; }
size_t max_memory_allocated(int) { return 0; }
size_t memory_reserved(int) { return 0; }
size_t max_memory_reserved(int) { return 0; }
void reset_peak_memory_stats(int) {}
std::map<std::string, int64_t> memory_stats(int) { return {}; }
std::string memory_summary(int, bool) { unavailable("memory_summary"); }
void set_per_process_memory_fraction(double, int) { unavailable("set_per_process_memory_fraction"); }
}  // namespace cuda
}  // namespace ember
