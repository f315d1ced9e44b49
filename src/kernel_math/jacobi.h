#pragma once
// The symmetric eigendecomposition and the SVD by Jacobi rotations, one matrix at a time: plain
// loops a GPU thread can run without workspace beyond the outputs, accurate to rounding (Jacobi
// methods are as accurate as LAPACK's, if slower for large n). The CUDA backend runs these per
// matrix; the CPU backend calls LAPACK, and a CPU test compares the two up to the signs of the
// vectors, which neither fixes. Compiled by g++ and nvcc alike (EMBER_HD).
#include <math.h>

#include <cstdint>

#include "ember/macros.h"

namespace ember {

// A strided view of a matrix: element (i, j) at data[i * row + j * col].
template <typename T>
struct JacobiMatrix {
  T* data;
  int64_t row, col;
  EMBER_HD_INLINE T& operator()(int64_t i, int64_t j) const { return data[i * row + j * col]; }
};

template <typename T>
EMBER_HD_INLINE T jacobi_abs(T x) {
  return x < T(0) ? -x : x;
}

// The rotation (c, s) with t = tan: the smaller root of t^2 + 2 zeta t - 1 = 0.
template <typename T>
EMBER_HD_INLINE void jacobi_rotation(T zeta, T& c, T& s) {
  const T t = (zeta >= T(0) ? T(1) : T(-1)) / (jacobi_abs(zeta) + ::sqrt(T(1) + zeta * zeta));
  c = T(1) / ::sqrt(T(1) + t * t);
  s = c * t;
}

// Columns p and q of a rows-row matrix rotated: (p, q) <- (c p - s q, s p + c q).
template <typename T>
EMBER_HD_INLINE void jacobi_rotate_columns(JacobiMatrix<T> a, int64_t rows, int64_t p, int64_t q,
                                           T c, T s) {
  for (int64_t k = 0; k < rows; ++k) {
    const T ap = a(k, p), aq = a(k, q);
    a(k, p) = c * ap - s * aq;
    a(k, q) = s * ap + c * aq;
  }
}

// Swaps columns i and j of an n-row matrix.
template <typename T>
EMBER_HD_INLINE void jacobi_swap_columns(JacobiMatrix<T> a, int64_t rows, int64_t i, int64_t j) {
  for (int64_t r = 0; r < rows; ++r) {
    const T t = a(r, i);
    a(r, i) = a(r, j);
    a(r, j) = t;
  }
}

constexpr int kJacobiSweeps = 60;

// The eigenvalues (ascending, into `values`) and eigenvectors (as the columns of v, n x n) of the
// symmetric n x n matrix a, which the cyclic Jacobi method diagonalises in place (a's whole
// square is read and written; fill it from one triangle first). Returns 0, or 1 when the
// off-diagonal did not vanish within kJacobiSweeps sweeps.
template <typename T>
EMBER_HD_INLINE int32_t jacobi_eigh(JacobiMatrix<T> a, JacobiMatrix<T> v, T* values, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) v(i, j) = i == j ? T(1) : T(0);
  }
  // An off-diagonal element is negligible below rounding of its diagonal pair, or of the whole
  // matrix (the rounding every rotation leaves behind, as LAPACK's normwise accuracy); converged
  // when a sweep finds nothing to rotate.
  const T eps = sizeof(T) == 4 ? T(6e-8) : T(1.1e-16);
  T frobenius = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) frobenius += a(i, j) * a(i, j);
  }
  const T floor = eps * T(n) * ::sqrt(frobenius);
  int32_t info = 1;
  for (int sweep = 0; sweep < kJacobiSweeps; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const T apq = a(p, q);
        const T size = jacobi_abs(apq);
        if (size <= floor || size <= eps * ::sqrt(jacobi_abs(a(p, p) * a(q, q)))) continue;
        rotated = true;
        T c, s;
        jacobi_rotation((a(q, q) - a(p, p)) / (T(2) * apq), c, s);
        // A <- J^T A J with J the rotation in the (p, q) plane: columns, then rows (the
        // columns of A's transpose view), and V <- V J.
        jacobi_rotate_columns(a, n, p, q, c, s);
        jacobi_rotate_columns(JacobiMatrix<T>{a.data, a.col, a.row}, n, p, q, c, s);
        a(p, q) = 0;
        a(q, p) = 0;
        jacobi_rotate_columns(v, n, p, q, c, s);
      }
    }
    if (!rotated) {
      info = 0;
      break;
    }
  }
  for (int64_t i = 0; i < n; ++i) values[i] = a(i, i);
  for (int64_t i = 0; i < n; ++i) {  // selection sort, ascending, moving the vectors along
    int64_t best = i;
    for (int64_t j = i + 1; j < n; ++j) {
      if (values[j] < values[best]) best = j;
    }
    if (best == i) continue;
    const T t = values[i];
    values[i] = values[best];
    values[best] = t;
    jacobi_swap_columns(v, n, i, best);
  }
  return info;
}

// The SVD of the rows x cols matrix w (rows >= cols) by one-sided Jacobi rotations of its
// columns: on return w's columns are the left singular vectors U (rows x cols, orthonormal even
// where a singular value is 0), s the singular values (descending) and v (cols x cols) the right
// singular vectors as columns, so that w_in = U diag(s) v^T. Returns 0, or 1 when the columns
// were not orthogonal within kJacobiSweeps sweeps.
template <typename T>
EMBER_HD_INLINE int32_t jacobi_svd(JacobiMatrix<T> w, JacobiMatrix<T> v, T* s, int64_t rows,
                                   int64_t cols) {
  for (int64_t i = 0; i < cols; ++i) {
    for (int64_t j = 0; j < cols; ++j) v(i, j) = i == j ? T(1) : T(0);
  }
  const T eps = sizeof(T) == 4 ? T(6e-8) : T(1.1e-16);
  int32_t info = 1;
  for (int sweep = 0; sweep < kJacobiSweeps; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < cols; ++p) {
      for (int64_t q = p + 1; q < cols; ++q) {
        T alpha = 0, beta = 0, gamma = 0;
        for (int64_t k = 0; k < rows; ++k) {
          alpha += w(k, p) * w(k, p);
          beta += w(k, q) * w(k, q);
          gamma += w(k, p) * w(k, q);
        }
        // Orthogonal to the rounding of the dot product itself.
        if (jacobi_abs(gamma) <= eps * T(rows) * ::sqrt(alpha * beta) || gamma == T(0)) continue;
        rotated = true;
        T c, sn;
        jacobi_rotation((beta - alpha) / (T(2) * gamma), c, sn);
        jacobi_rotate_columns(w, rows, p, q, c, sn);
        jacobi_rotate_columns(v, cols, p, q, c, sn);
      }
    }
    if (!rotated) {
      info = 0;
      break;
    }
  }
  for (int64_t j = 0; j < cols; ++j) {
    T norm = 0;
    for (int64_t k = 0; k < rows; ++k) norm += w(k, j) * w(k, j);
    s[j] = ::sqrt(norm);
  }
  for (int64_t i = 0; i < cols; ++i) {  // selection sort, descending, with both vector sets
    int64_t best = i;
    for (int64_t j = i + 1; j < cols; ++j) {
      if (s[j] > s[best]) best = j;
    }
    if (best == i) continue;
    const T t = s[i];
    s[i] = s[best];
    s[best] = t;
    jacobi_swap_columns(w, rows, i, best);
    jacobi_swap_columns(v, cols, i, best);
  }
  // Normalise U's columns. A column whose singular value is negligible is replaced by the first
  // unit vector that, orthogonalised against the columns before it (twice, for rounding), keeps
  // a substantial norm: U stays orthonormal, as LAPACK's is.
  const T negligible = (s[0] > T(0) ? s[0] : T(1)) * eps * T(rows);
  for (int64_t j = 0; j < cols; ++j) {
    if (s[j] > negligible) {
      for (int64_t k = 0; k < rows; ++k) w(k, j) /= s[j];
      continue;
    }
    for (int64_t e = 0; e < rows; ++e) {
      for (int64_t k = 0; k < rows; ++k) w(k, j) = k == e ? T(1) : T(0);
      for (int pass = 0; pass < 2; ++pass) {
        for (int64_t i = 0; i < j; ++i) {
          T dot = 0;
          for (int64_t k = 0; k < rows; ++k) dot += w(k, i) * w(k, j);
          for (int64_t k = 0; k < rows; ++k) w(k, j) -= dot * w(k, i);
        }
      }
      T norm = 0;
      for (int64_t k = 0; k < rows; ++k) norm += w(k, j) * w(k, j);
      norm = ::sqrt(norm);
      if (norm > T(0.5)) {
        for (int64_t k = 0; k < rows; ++k) w(k, j) /= norm;
        break;
      }
    }
  }
  return info;
}

}  // namespace ember
