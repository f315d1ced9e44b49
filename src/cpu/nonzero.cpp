// nonzero on the CPU: count the true elements of the mask, allocate, then write their
// coordinates in row-major order, carrying a coordinate counter along instead of dividing.
#include <vector>

#include "core/tensor_factory.h"
#include "cpu/cpu_backend.h"

namespace ember::cpu {

Tensor CpuBackend::nonzero(const Tensor& mask) {
  const bool* m = mask.data_ptr<bool>();
  const int64_t n = mask.numel(), nd = mask.dim();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += m[i] ? 1 : 0;
  Tensor out = make_empty({count, nd}, kLong, mask.device());
  if (count == 0 || nd == 0) return out;
  int64_t* o = out.data_ptr<int64_t>();
  IntArrayRef sizes = mask.sizes();
  std::vector<int64_t> coord(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (m[i]) o = std::copy(coord.begin(), coord.end(), o);
    for (int64_t d = nd - 1; d >= 0; --d) {  // the next element's coordinates
      if (++coord[d] < sizes[d]) break;
      coord[d] = 0;
    }
  }
  return out;
}

}  // namespace ember::cpu
