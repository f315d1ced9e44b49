#pragma once
// The QR factorisation by Householder reflections, one matrix at a time, as LAPACK's unblocked
// geqr2/org2r compute it (column-major storage, element (i, j) at i + j * m; LAPACK's choice of
// each reflector's sign, so R's diagonal and Q's signs match the CPU backend's geqrf/orgqr).
// The CUDA backend runs these per matrix; a CPU test compares them with LAPACK. Compiled by g++
// and nvcc alike (EMBER_HD).
#include <math.h>

#include <cstdint>

#include "ember/macros.h"

namespace ember {

// Applies H = I - tau v v^T to the column dst (rows j..m-1): v's entries are v[j+1..m-1] below
// an implied 1 at row j.
template <typename T>
EMBER_HD_INLINE void householder_apply(const T* v, T tau, T* dst, int64_t j, int64_t m) {
  T dot = dst[j];
  for (int64_t i = j + 1; i < m; ++i) dot += v[i] * dst[i];
  dot *= tau;
  dst[j] -= dot;
  for (int64_t i = j + 1; i < m; ++i) dst[i] -= dot * v[i];
}

// geqr2: replaces the m x n matrix `a` by R (on and above the diagonal) and the reflectors
// H_j = I - tau_j v_j v_j^T (v_j's entries below the diagonal of column j, its leading 1
// implied); tau has min(m, n) entries.
template <typename T>
EMBER_HD_INLINE void householder_qr_column_major(T* a, T* tau, int64_t m, int64_t n) {
  const int64_t k = m < n ? m : n;
  for (int64_t j = 0; j < k; ++j) {
    T* col = a + j * m;
    // dlarfg: beta = -sign(alpha) * ||x||, v = x[1:] / (alpha - beta), tau = (beta - alpha) / beta.
    const T alpha = col[j];
    T tail = 0;
    for (int64_t i = j + 1; i < m; ++i) tail += col[i] * col[i];
    if (tail == T(0)) {
      tau[j] = 0;  // already upper triangular in this column: H_j = I
      continue;
    }
    const T norm = ::sqrt(alpha * alpha + tail);
    const T beta = alpha >= T(0) ? -norm : norm;
    tau[j] = (beta - alpha) / beta;
    const T scale = T(1) / (alpha - beta);
    for (int64_t i = j + 1; i < m; ++i) col[i] *= scale;
    col[j] = beta;
    // Apply H_j to the trailing columns: c -= tau (v . c) v.
    for (int64_t c = j + 1; c < n; ++c) householder_apply(col, tau[j], a + c * m, j, m);
  }
}

// org2r: replaces the m x c matrix `q`, whose first k columns hold geqr2's reflectors, by the
// first c columns of Q = H_1 ... H_k (k <= c <= m).
template <typename T>
EMBER_HD_INLINE void householder_product_column_major(T* q, const T* tau, int64_t m, int64_t c,
                                                      int64_t k) {
  for (int64_t j = k; j < c; ++j) {  // the columns past the reflectors start as the identity's
    for (int64_t i = 0; i < m; ++i) q[i + j * m] = i == j ? T(1) : T(0);
  }
  for (int64_t j = k - 1; j >= 0; --j) {
    T* col = q + j * m;
    // Apply H_j to columns j+1 .. c-1 (rows j .. m-1), with v's leading 1.
    for (int64_t cc = j + 1; cc < c; ++cc) householder_apply(col, tau[j], q + cc * m, j, m);
    // Column j itself becomes H_j e_j.
    for (int64_t i = j + 1; i < m; ++i) col[i] *= -tau[j];
    col[j] = T(1) - tau[j];
    for (int64_t i = 0; i < j; ++i) col[i] = 0;
  }
}

}  // namespace ember
