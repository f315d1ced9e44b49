#include "cuda_policy/elementwise_path.h"

#include <atomic>

namespace ember::cuda_policy {

namespace {
std::atomic<int> g_fastest{static_cast<int>(ElementwisePath::Vectorized)};
}  // namespace

const char* to_string(ElementwisePath p) {
  switch (p) {
    case ElementwisePath::Vectorized:
      return "Vectorized";
    case ElementwisePath::Linear32:
      return "Linear32";
    case ElementwisePath::Strided32:
      return "Strided32";
    case ElementwisePath::Strided64:
      return "Strided64";
  }
  return "?";
}

void set_fastest_elementwise_path(ElementwisePath p) {
  g_fastest.store(static_cast<int>(p), std::memory_order_relaxed);
}

ElementwisePath fastest_elementwise_path() {
  return static_cast<ElementwisePath>(g_fastest.load(std::memory_order_relaxed));
}

}  // namespace ember::cuda_policy
