// ember::cuda::matmul_allow_tf32: a setting, not device work, so it is defined once here rather
// than by each build's CUDA half (src/cuda, src/cuda_stub). A build without CUDA keeps the value
// too, as PyTorch's flag does.
#include <atomic>

#include "ember/cuda.h"

namespace ember::cuda {
namespace {
std::atomic<bool> g_allow_tf32{false};  // off by default, as in PyTorch since 1.12
}  // namespace

bool matmul_allow_tf32() {
  return g_allow_tf32.load();
}
void set_matmul_allow_tf32(bool allow) {
  g_allow_tf32.store(allow);
}

}  // namespace ember::cuda
