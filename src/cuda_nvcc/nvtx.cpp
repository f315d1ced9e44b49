// NVTX ranges through the header-only NVTX 3 API: without an attached tool (Nsight Systems)
// each call is a check of a null function pointer.
#include "core/nvtx.h"

#include <nvtx3/nvToolsExt.h>

namespace ember::detail {

void nvtx_range_push(const char* name) {
  nvtxRangePushA(name);
}
void nvtx_range_pop() {
  nvtxRangePop();
}

}  // namespace ember::detail
