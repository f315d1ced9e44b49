#pragma once
// ember::cuda: the Python torch.cuda API in C++. In a build without CUDA, or on a machine without
// a driver or GPU, is_available() is false and device_count() is 0; nothing here aborts.
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "ember/device.h"
#include "ember/macros.h"

namespace ember::cuda {

struct DeviceProperties {
  std::string name;
  size_t total_memory = 0;
  int multi_processor_count = 0;
  int major = 0;
  int minor = 0;
};

EMBER_API bool is_available();
EMBER_API int device_count();
// Why is_available() is false: "Ember was built without CUDA", "no NVIDIA driver", "no CUDA
// device"; empty when CUDA is available.
EMBER_API std::string unavailable_reason();
EMBER_API std::string get_device_name(int device = -1);
EMBER_API DeviceProperties get_device_properties(int device = -1);
EMBER_API int current_device();
EMBER_API void set_device(int device);
EMBER_API void synchronize(int device = -1);
EMBER_API std::pair<size_t, size_t> mem_get_info(int device = -1);
EMBER_API void manual_seed(uint64_t seed);
EMBER_API void manual_seed_all(uint64_t seed);

// Caching allocator statistics and control (torch.cuda.memory_*).
EMBER_API void empty_cache();
EMBER_API size_t memory_allocated(int device = -1);
EMBER_API size_t max_memory_allocated(int device = -1);
EMBER_API size_t memory_reserved(int device = -1);
EMBER_API size_t max_memory_reserved(int device = -1);
EMBER_API void reset_peak_memory_stats(int device = -1);
EMBER_API std::map<std::string, int64_t> memory_stats(int device = -1);
EMBER_API std::string memory_summary(int device = -1, bool abbreviated = false);
EMBER_API void set_per_process_memory_fraction(double fraction, int device = -1);

// Throws DeviceError saying why when `device` cannot be used (no CUDA, ordinal out of range).
EMBER_API void check_device(Device device);

}  // namespace ember::cuda
