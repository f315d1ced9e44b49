#pragma once
// Device: a small value type naming where a tensor lives ("cpu", "cuda", "cuda:1").
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <type_traits>

#include "ember/macros.h"

namespace ember {

// MPS (Apple's Metal) is a device type without a backend: Device("mps") parses and prints as in
// libtorch, so code that only names it compiles and runs, but a tensor cannot live there
// (DeviceError). The numbers are libtorch's.
// Meta tensors have sizes, strides and a dtype but no storage: every op computes its result's
// shape and dtype and runs no kernel (src/meta), as libtorch's kMeta.
enum class DeviceType : int8_t { CPU = 0, CUDA = 1, MPS = 13, Meta = 14 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kMPS = DeviceType::MPS;
constexpr DeviceType kMeta = DeviceType::Meta;
using DeviceIndex = int8_t;

EMBER_API std::string device_type_name(DeviceType type);

class EMBER_API Device {
 public:
  // index -1 means "the current device of that type" (resolved when memory is allocated).
  Device(DeviceType type, DeviceIndex index = -1);
  // An index of any other integer type (Device(kCUDA, 257), an int64_t or size_t ordinal) is
  // checked against DeviceIndex's range before it is narrowed: a DeviceError naming it, never
  // cuda:1.
  template <typename I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool> &&
                                             !std::is_same_v<I, DeviceIndex>,
                                         int> = 0>
  Device(DeviceType type, I index) : Device(type, narrow_index(index)) {}
  // Parses "cpu", "cuda", "cuda:N", "meta", "mps", "mps:N"; throws ember::DeviceError on anything
  // else.
  Device(const std::string& spec);
  Device(const char* spec) : Device(std::string(spec)) {}

  DeviceType type() const noexcept { return type_; }
  DeviceIndex index() const noexcept { return index_; }
  bool has_index() const noexcept { return index_ >= 0; }
  bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }
  bool is_mps() const noexcept { return type_ == DeviceType::MPS; }
  bool is_meta() const noexcept { return type_ == DeviceType::Meta; }
  void set_index(DeviceIndex index) { index_ = index; }
  std::string str() const;

  bool operator==(const Device& o) const noexcept { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const noexcept { return !(*this == o); }

 private:
  template <typename I>
  static DeviceIndex narrow_index(I index) {
    constexpr auto kMax = std::numeric_limits<DeviceIndex>::max();
    const bool fits =
        std::is_signed_v<I>
            ? (static_cast<long long>(index) >= -1 && static_cast<long long>(index) <= kMax)
            : static_cast<unsigned long long>(index) <= static_cast<unsigned long long>(kMax);
    if (!fits) index_out_of_range(std::to_string(index));
    return static_cast<DeviceIndex>(index);
  }
  [[noreturn]] static void index_out_of_range(const std::string& index);

  DeviceType type_;
  DeviceIndex index_ = -1;
};

// Throws DeviceError unless tensors can live on `device`'s type (cpu, cuda and meta; not mps).
EMBER_API void check_device_has_backend(const Device& device);

EMBER_API std::ostream& operator<<(std::ostream& os, const Device& d);
EMBER_API std::ostream& operator<<(std::ostream& os, DeviceType t);

}  // namespace ember

template <>
struct std::hash<ember::Device> {
  size_t operator()(const ember::Device& d) const noexcept {
    return (static_cast<size_t>(d.type()) << 8) | static_cast<uint8_t>(d.index());
  }
};
