#pragma once
// What nvcc makes visible in every .cu file: the runtime API plus the device built-ins
// (threadIdx, __syncthreads, shuffles, atomics), here for the simulator (src/cuda_sim).
#include "cuda_runtime_api.h"
#include "cuda_sim_device.h"
