// The simulator has no Nsight to show NVTX ranges: the profiler's NVTX calls do nothing.
#include "core/nvtx.h"

namespace ember::detail {

void nvtx_range_push(const char*) {}
void nvtx_range_pop() {}

}  // namespace ember::detail
