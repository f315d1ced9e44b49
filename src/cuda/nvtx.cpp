// NVTX ranges through the header-only NVTX 3 API: without an attached tool (Nsight Systems)
// each call is a check of a null function pointer. The simulator has no tool to show them, so
// there they compile to nothing.
#include "profiler/nvtx.h"

#if !defined(EMBER_CUDA_SIM)
#include <nvtx3/nvToolsExt.h>
#endif

namespace ember::profiler::detail {

#if defined(EMBER_CUDA_SIM)
void nvtx_range_push(const char*) {}
void nvtx_range_pop() {}
#else
void nvtx_range_push(const char* name) {
  nvtxRangePushA(name);
}
void nvtx_range_pop() {
  nvtxRangePop();
}
#endif

}  // namespace ember::profiler::detail
