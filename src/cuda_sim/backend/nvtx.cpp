// The simulator has no Nsight to show NVTX ranges: the profiler's NVTX calls do nothing.
#include "profiler/nvtx.h"

namespace ember::profiler::detail {

void nvtx_range_push(const char*) {}
void nvtx_range_pop() {}

}  // namespace ember::profiler::detail
