// torch.backends.cudnn's switches. They are settings, not device work, so they live here for
// every build; the CUDA backend's cuDNN convolutions read them (src/cuda_cudnn), which also say
// whether cuDNN is available (is_available() and version() live with the backend's build).
#include <atomic>

#include "ember/backends.h"

namespace ember::backends::cudnn {
namespace {
std::atomic<bool> g_enabled{true};
std::atomic<bool> g_benchmark{false};
std::atomic<bool> g_deterministic{false};
std::atomic<bool> g_allow_tf32{true};  // PyTorch's default for convolutions
}  // namespace

bool enabled() {
  return g_enabled.load();
}
void set_enabled(bool value) {
  g_enabled.store(value);
}
bool benchmark() {
  return g_benchmark.load();
}
void set_benchmark(bool value) {
  g_benchmark.store(value);
}
bool deterministic() {
  return g_deterministic.load();
}
void set_deterministic(bool value) {
  g_deterministic.store(value);
}
bool allow_tf32() {
  return g_allow_tf32.load();
}
void set_allow_tf32(bool value) {
  g_allow_tf32.store(value);
}

}  // namespace ember::backends::cudnn
