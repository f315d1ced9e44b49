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

Backend& cuda_backend() {
  unavailable("Cannot use a CUDA device");
}
Allocator* pinned_host_allocator() {
  unavailable("Cannot allocate pinned memory");
}

namespace cuda {
bool is_available() {
  return false;
}
bool is_simulated() {
  return false;
}
int device_count() {
  return 0;
}
std::string unavailable_reason() {
  return kReason;
}
void check_device(Device device) {
  if (device.is_cuda()) {
    throw DeviceError(
        detail::str_cat("Cannot use device ", device, ": CUDA is not available: ", kReason));
  }
}
std::string get_device_name(int) {
  unavailable("get_device_name");
}
DeviceProperties get_device_properties(int) {
  unavailable("get_device_properties");
}
int current_device() {
  unavailable("current_device");
}
void set_device(int) {
  unavailable("set_device");
}
void synchronize(int) {
  unavailable("synchronize");
}
std::pair<size_t, size_t> mem_get_info(int) {
  unavailable("mem_get_info");
}
// Seeding CUDA without CUDA is a no-op in PyTorch too (torch.cuda.manual_seed_all is lazy).
void manual_seed(uint64_t) {}
void manual_seed_all(uint64_t) {}
void empty_cache() {}
size_t memory_allocated(int) {
  return 0;
}
size_t max_memory_allocated(int) {
  return 0;
}
size_t memory_reserved(int) {
  return 0;
}
size_t max_memory_reserved(int) {
  return 0;
}
void reset_peak_memory_stats(int) {}
std::map<std::string, int64_t> memory_stats(int) {
  return {};
}
std::string memory_summary(int, bool) {
  unavailable("memory_summary");
}
void set_per_process_memory_fraction(double, int) {
  unavailable("set_per_process_memory_fraction");
}

Stream Stream::create(int, int) {
  unavailable("Stream::create");
}
bool Stream::query() const {
  unavailable("Stream::query");
}
void Stream::synchronize() const {
  unavailable("Stream::synchronize");
}
Stream getStreamFromPool(bool, int) {
  unavailable("getStreamFromPool");
}
Stream getDefaultCUDAStream(int) {
  unavailable("getDefaultCUDAStream");
}
Stream getCurrentCUDAStream(int) {
  unavailable("getCurrentCUDAStream");
}
Stream current_stream(int) {
  unavailable("current_stream");
}
Stream default_stream(int) {
  unavailable("default_stream");
}
void set_current_stream(const Stream&) {
  unavailable("set_current_stream");
}
std::pair<int, int> stream_priority_range() {
  unavailable("stream_priority_range");
}
StreamGuard::StreamGuard(const Stream& s) : original_stream_(s), current_(s), original_device_(-1) {
  unavailable("StreamGuard");
}
StreamGuard::~StreamGuard() = default;
DeviceGuard::DeviceGuard(int) : original_(-1) {
  unavailable("DeviceGuard");
}
DeviceGuard::~DeviceGuard() = default;

// An Event is created on first record(), so constructing one is harmless without CUDA.
Event::Event(bool enable_timing, bool blocking)
    : enable_timing_(enable_timing), blocking_(blocking) {}
Event::~Event() = default;
Event::Event(Event&& o) noexcept : enable_timing_(o.enable_timing_), blocking_(o.blocking_) {}
Event& Event::operator=(Event&&) noexcept {
  return *this;
}
void Event::record() {
  unavailable("Event::record");
}
void Event::record(const Stream&) {
  unavailable("Event::record");
}
bool Event::query() const {
  return true;
}
void Event::synchronize() const {}
float Event::elapsed_time(const Event&) const {
  unavailable("Event::elapsed_time");
}
void Event::wait(const Stream&) const {
  unavailable("Event::wait");
}

void record_stream(const DataPtr& data, const StreamRef&) {
  if (data.device().is_cuda()) unavailable("record_stream");
}
size_t host_memory_allocated() {
  return 0;
}
size_t host_memory_reserved() {
  return 0;
}
void host_empty_cache() {}
}  // namespace cuda

// Without CUDA no memory is CUDA memory: record_stream has nothing to protect.
void Tensor::record_stream(const StreamRef& stream) const {
  cuda::record_stream(impl()->storage()->data, stream);
}
}  // namespace ember
