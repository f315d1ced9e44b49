#pragma once
// NVTX ranges (Nsight Systems shows the profiler's names): declared in core, like
// cuda_backend(), so that the profiler above calls down and the backend below implements it:
// src/cuda_nvcc/nvtx.cpp on real CUDA builds; nothing on the simulator
// (src/cuda_sim/backend/nvtx.cpp) and without CUDA (src/cuda_stub/nvtx.cpp).
namespace ember::detail {

void nvtx_range_push(const char* name);
void nvtx_range_pop();

}  // namespace ember::detail
