#include "ember_train/device_select.h"

#include <omp.h>

#include "ember/cuda.h"

namespace ember::train {

Device select_device(const std::string& spec) {
  if (spec == "auto") {
    return cuda::is_available() ? Device(kCUDA, static_cast<DeviceIndex>(cuda::current_device()))
                                : Device(kCPU);
  }
  Device device(spec);
  if (device.is_cuda()) {
    if (device.index() < 0) {
      cuda::check_device(device);
      device = Device(kCUDA, static_cast<DeviceIndex>(cuda::current_device()));
    }
    cuda::check_device(device);
  }
  return device;
}

std::string describe_device(const Device& device) {
  if (device.is_cuda()) {
    return device.str() + " (" + cuda::get_device_name(device.index()) + ")";
  }
  const int n = cpu_threads();
  return device.str() + " (" + std::to_string(n) + (n == 1 ? " thread)" : " threads)");
}

int cpu_threads() {
  return omp_get_max_threads();
}

}  // namespace ember::train
