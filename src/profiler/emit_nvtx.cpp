// torch.autograd.profiler.emit_nvtx: ops and record_function ranges become NVTX ranges for
// Nsight Systems, with no profile recording.
#include "ember/profiler.h"
#include "profiler/session.h"

namespace ember::profiler {

emit_nvtx::emit_nvtx(bool enabled) : enabled_(enabled) {
  if (enabled_) detail::add_nvtx_scope(1);
}

emit_nvtx::~emit_nvtx() {
  if (enabled_) detail::add_nvtx_scope(-1);
}

}  // namespace ember::profiler
