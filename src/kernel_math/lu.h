#pragma once
// LU factorisation with partial pivoting and the solves from it, and the Cholesky factorisation,
// one matrix at a time, as LAPACK's getrf/getrs/potrf compute them: column-major storage (element
// (i, j) at i + j * n), the pivot of column j the first row holding its largest magnitude, pivots
// 1-based. The CUDA backend runs these per matrix (the CPU backend calls LAPACK itself; the CUDA
// tests compare the two). Compiled by g++ and nvcc alike (EMBER_HD).
#include <math.h>

#include <cstdint>

#include "ember/macros.h"

namespace ember {

template <typename T>
EMBER_HD_INLINE T lu_magnitude(T x) {
  return x < T(0) ? -x : x;
}

template <typename T>
EMBER_HD_INLINE void lu_swap(T& a, T& b) {
  const T t = a;
  a = b;
  b = t;
}

// Factorises the n x n matrix `a` in place into L (unit lower, below the diagonal) and U, with
// A = P L U; pivots[j] is the 1-based row swapped with row j at step j. Returns getrf's info: 0,
// or the 1-based index of U's first zero diagonal element (the factorisation still completes).
template <typename T>
EMBER_HD_INLINE int32_t lu_factor_column_major(T* a, int32_t* pivots, int64_t n) {
  int32_t info = 0;
  for (int64_t j = 0; j < n; ++j) {
    T* col = a + j * n;
    int64_t p = j;
    T best = lu_magnitude(col[j]);
    for (int64_t i = j + 1; i < n; ++i) {
      const T v = lu_magnitude(col[i]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    pivots[j] = static_cast<int32_t>(p + 1);
    if (col[p] != T(0)) {
      if (p != j) {
        for (int64_t c = 0; c < n; ++c) lu_swap(a[j + c * n], a[p + c * n]);
      }
      const T inverse = T(1) / col[j];
      for (int64_t i = j + 1; i < n; ++i) col[i] *= inverse;
    } else if (info == 0) {
      info = static_cast<int32_t>(j + 1);
    }
    for (int64_t c = j + 1; c < n; ++c) {  // the trailing matrix -= L's column x U's row
      T* dst = a + c * n;
      const T u = dst[j];
      if (u == T(0)) continue;
      for (int64_t i = j + 1; i < n; ++i) dst[i] -= col[i] * u;
    }
  }
  return info;
}

// Solves A x = b (transpose: A^T x = b) in place for one right-hand side b of length n, from
// lu_factor_column_major's lu and pivots.
template <typename T>
EMBER_HD_INLINE void lu_solve_column_major(const T* lu, const int32_t* pivots, T* b, int64_t n,
                                           bool transpose) {
  if (!transpose) {  // L U x = P^T b
    for (int64_t j = 0; j < n; ++j) {
      const int64_t p = pivots[j] - 1;
      if (p != j) lu_swap(b[j], b[p]);
    }
    for (int64_t j = 0; j < n; ++j) {  // L y = P^T b, L unit lower
      const T bj = b[j];
      for (int64_t i = j + 1; i < n; ++i) b[i] -= lu[i + j * n] * bj;
    }
    for (int64_t j = n - 1; j >= 0; --j) {  // U x = y
      b[j] /= lu[j + j * n];
      const T bj = b[j];
      for (int64_t i = 0; i < j; ++i) b[i] -= lu[i + j * n] * bj;
    }
    return;
  }
  for (int64_t j = 0; j < n; ++j) {  // U^T y = b
    T s = b[j];
    for (int64_t i = 0; i < j; ++i) s -= lu[i + j * n] * b[i];
    b[j] = s / lu[j + j * n];
  }
  for (int64_t j = n - 1; j >= 0; --j) {  // L^T z = y
    T s = b[j];
    for (int64_t i = j + 1; i < n; ++i) s -= lu[i + j * n] * b[i];
    b[j] = s;
  }
  for (int64_t j = n - 1; j >= 0; --j) {  // x = P z: the swaps undone in reverse
    const int64_t p = pivots[j] - 1;
    if (p != j) lu_swap(b[j], b[p]);
  }
}

// The lower Cholesky factor of the n x n matrix `a` (potrf's 'L'), in place on and below the
// diagonal, from a's lower triangle; the upper triangle is left. Returns potrf's info: 0, or the
// order of the first leading minor that is not positive-definite (a NaN counts as one).
template <typename T>
EMBER_HD_INLINE int32_t cholesky_column_major(T* a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    T d = a[j + j * n];
    for (int64_t k = 0; k < j; ++k) d -= a[j + k * n] * a[j + k * n];
    if (!(d > T(0))) return static_cast<int32_t>(j + 1);
    d = ::sqrt(d);
    a[j + j * n] = d;
    for (int64_t i = j + 1; i < n; ++i) {
      T s = a[i + j * n];
      for (int64_t k = 0; k < j; ++k) s -= a[i + k * n] * a[j + k * n];
      a[i + j * n] = s / d;
    }
  }
  return 0;
}

}  // namespace ember
