// Without CUDA there are no cuBLAS workspaces (src/cuda/cublas_workspace.h).
#include "cuda/cublas_workspace.h"

#include "ember/cuda.h"
#include "ember/error.h"

namespace ember::cuda {

std::vector<CublasWorkspaceInfo> cublas_workspaces() {
  return {};
}

size_t cublas_workspace_size(int) {
  throw DeviceError("cublas_workspace_size: CUDA is not available: " + unavailable_reason());
}

}  // namespace ember::cuda
