#pragma once
// Device: a small value type naming where a tensor lives ("cpu", "cuda", "cuda:1").
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "ember/macros.h"

namespace ember {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
using DeviceIndex = int8_t;

EMBER_API std::string device_type_name(DeviceType type);

class EMBER_API Device {
 public:
  // index -1 means "the current device of that type" (resolved when memory is allocated).
  Device(DeviceType type, DeviceIndex index = -1);
  // Parses "cpu", "cuda", "cuda:N"; throws ember::Error on anything else.
  Device(const std::string& spec);
  Device(const char* spec) : Device(std::string(spec)) {}

  DeviceType type() const noexcept { return type_; }
  DeviceIndex index() const noexcept { return index_; }
  bool has_index() const noexcept { return index_ >= 0; }
  bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }
  void set_index(DeviceIndex index) { index_ = index; }
  std::string str() const;

  bool operator==(const Device& o) const noexcept { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const noexcept { return !(*this == o); }

 private:
  DeviceType type_;
  DeviceIndex index_ = -1;
};

EMBER_API std::ostream& operator<<(std::ostream& os, const Device& d);
EMBER_API std::ostream& operator<<(std::ostream& os, DeviceType t);

}  // namespace ember

template <>
struct std::hash<ember::Device> {
  size_t operator()(const ember::Device& d) const noexcept {
    return (static_cast<size_t>(d.type()) << 8) | static_cast<uint8_t>(d.index());
  }
};
