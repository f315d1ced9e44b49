#pragma once
// The fused normalisation of layer_norm, group_norm and instance_norm, written once for both
// backends (EMBER_HD). The input is [rows, row_size] (contiguous); each row is normalised over
// its own elements and then scaled and shifted per weight element:
//
//   mean = sum(x) / K        rstd = 1 / sqrt(sum((x - mean)^2) / K + eps)     (K = row_size)
//   xhat = (x - mean) * rstd            y = xhat * w[j] + b[j]
//
// Which weight element j an element takes is the geometry's: rows cycle through `groups` groups
// (row r is group r % groups), and a row has weights_per_group weight elements, each for a run of
// inner = row_size / weights_per_group neighbouring elements:
//
//   layer_norm [*, K]:                 groups 1, weights K, inner 1          j = k
//   group_norm [N, C, HW], G groups:   groups G, weights C/G, inner HW       j = g * C/G + k / HW
//   instance_norm [N, C, HW]:          groups C, weights 1, inner HW         j = c
//
// The backward, with g = dy * w[j] (dy when there is no weight):
//   dx = rstd * (g - sum(g) / K - xhat * sum(g * xhat) / K)
//   dw[j] = sum over j's elements of dy * xhat       db[j] = sum over j's elements of dy
// Both backends sum a row relative to its first element, then take the variance about the mean in
// a second pass (not as E[x^2] - E[x]^2), so rows with a large offset keep their precision.
#include <math.h>

#include <cstdint>

#include "ember/macros.h"

namespace ember {

struct RowNormGeometry {
  int64_t rows = 0, row_size = 0;  // the input viewed as [rows, row_size]
  int64_t groups = 1;              // row r is group r % groups
  int64_t weights_per_group = 0;   // a row's weight elements, each for row_size / this elements
  double eps = 1e-5;

  // Elements per weight element: layer_norm's 1, the positions of a channel for the others.
  EMBER_HD_INLINE int64_t inner() const {
    return weights_per_group == 0 ? 0 : row_size / weights_per_group;
  }
  // The weight element of row r's element k.
  EMBER_HD_INLINE int64_t weight_index(int64_t r, int64_t k) const {
    return (r % groups) * weights_per_group + k / inner();
  }
  // Every weight element.
  EMBER_HD_INLINE int64_t weight_count() const { return groups * weights_per_group; }
};

// 1 / sqrt(variance + eps) from the sum of squared deviations of a row of K elements; an empty
// row gives NaN, as PyTorch's mean of nothing.
template <typename Acc>
EMBER_HD_INLINE Acc row_norm_rstd(Acc squared_deviations, int64_t K, double eps) {
  return Acc(1) / ::sqrt(squared_deviations / static_cast<Acc>(K) + static_cast<Acc>(eps));
}

}  // namespace ember
