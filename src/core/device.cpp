// Device parsing and printing.
#include "ember/device.h"

#include <cctype>
#include <limits>

#include "ember/error.h"

namespace ember {

std::string device_type_name(DeviceType type) {
  switch (type) {
    case DeviceType::CPU:
      return "cpu";
    case DeviceType::CUDA:
      return "cuda";
    case DeviceType::MPS:
      return "mps";
    case DeviceType::Meta:
      return "meta";
  }
  return "unknown";
}

void check_device_has_backend(const Device& device) {
  if (device.is_cpu() || device.is_cuda() || device.is_meta()) return;
  throw DeviceError(
      detail::str_cat("Ember has no backend for device type '", device_type_name(device.type()),
                      "': tensors live on 'cpu', 'cuda' or 'meta' (Device(\"", device,
                      "\") is accepted, as in libtorch, only so that code naming it compiles)"));
}

Device::Device(DeviceType type, DeviceIndex index) : type_(type), index_(index) {
  EMBER_CHECK(index >= -1, DeviceError, "Device index must be -1 or non-negative, got ",
              static_cast<int>(index));
  EMBER_CHECK(!(type == DeviceType::CPU && index > 0), DeviceError,
              "CPU device index must be -1 or zero, got ", static_cast<int>(index));
  EMBER_CHECK(!(type == DeviceType::Meta && index > 0), DeviceError,
              "meta device index must be -1 or zero, got ", static_cast<int>(index));
}

void Device::index_out_of_range(const std::string& index) {
  throw DeviceError(detail::str_cat("Device index must be -1 or in [0, ",
                                    static_cast<int>(std::numeric_limits<DeviceIndex>::max()),
                                    "], got ", index));
}

Device::Device(const std::string& spec) {
  auto invalid = [&] { return DeviceError("Invalid device string: '" + spec + "'"); };
  std::string type = spec, index;
  size_t colon = spec.find(':');
  if (colon != std::string::npos) {
    type = spec.substr(0, colon);
    index = spec.substr(colon + 1);
    if (index.empty() || index.size() > 3) throw invalid();
    for (char c : index) {
      if (!std::isdigit(static_cast<unsigned char>(c))) throw invalid();
    }
    if (index.size() > 1 && index[0] == '0') throw invalid();
  }
  if (type == "cpu") {
    type_ = DeviceType::CPU;
  } else if (type == "cuda") {
    type_ = DeviceType::CUDA;
  } else if (type == "mps") {
    type_ = DeviceType::MPS;
  } else if (type == "meta") {
    type_ = DeviceType::Meta;
  } else {
    throw invalid();
  }
  if (!index.empty()) {
    int i = std::stoi(index);
    if (i > 127) throw invalid();
    if ((type_ == DeviceType::CPU || type_ == DeviceType::Meta) && i != 0) throw invalid();
    index_ = static_cast<DeviceIndex>(i);
  }
}

std::string Device::str() const {
  std::string s = device_type_name(type_);
  // "cpu:0" keeps its index, as libtorch prints it; tensors on the CPU report plain "cpu".
  if (has_index()) s += ":" + std::to_string(static_cast<int>(index_));
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) {
  return os << d.str();
}
std::ostream& operator<<(std::ostream& os, DeviceType t) {
  return os << device_type_name(t);
}

}  // namespace ember
