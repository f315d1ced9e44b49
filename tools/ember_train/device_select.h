#pragma once
// --device: "auto" picks cuda (the current device) when ember::cuda::is_available(), else cpu.
#include <string>

#include "ember/device.h"

namespace ember::train {

// Throws ember::DeviceError saying why when CUDA is asked for and cannot be used (built without
// CUDA, no driver, no device, ordinal out of range).
Device select_device(const std::string& spec);

// "cuda:0 (NVIDIA H100 80GB HBM3)" or "cpu (2 threads)".
std::string describe_device(const Device& device);

// Threads the CPU kernels use (OpenMP's maximum).
int cpu_threads();

}  // namespace ember::train
