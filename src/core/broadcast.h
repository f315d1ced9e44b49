#pragma once
// Broadcasting of two shapes (right-aligned, size-1 dims stretch), without heap traffic.
#include "ember/array_ref.h"
#include "ember/error.h"

namespace ember {

inline DimVector broadcast_dims(IntArrayRef a, IntArrayRef b) {
  if (a == b) return DimVector(a);
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw ValueError(
          detail::str_cat("The size of tensor a (", da, ") must match the size of tensor b (", db,
                          ") at non-singleton dimension ", i, " (shapes ", a, " and ", b, ")"));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace ember
