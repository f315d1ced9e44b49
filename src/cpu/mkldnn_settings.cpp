// torch.backends.mkldnn's switch: whether the CPU backend may use oneDNN (float32 convolutions,
// bfloat16 GEMMs). It lives with the CPU backend because only this layer knows whether the build
// has oneDNN.
#include <atomic>

#include "cpu/dnnl_convolution.h"
#include "ember/backends.h"

namespace ember::backends::mkldnn {
namespace {
std::atomic<bool> g_enabled{true};
}  // namespace

bool is_available() {
  return cpu::dnnl_convolution_available();
}
bool enabled() {
  return g_enabled.load(std::memory_order_relaxed);
}
void set_enabled(bool value) {
  g_enabled.store(value);
}

}  // namespace ember::backends::mkldnn
