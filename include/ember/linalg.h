#pragma once
// torch::linalg's square-matrix functions built on an LU factorisation with partial pivoting
// (src/ops/linalg_lu.cpp; the `lu_factor` and `lu_solve` backend families) or on a Cholesky one
// (the `cholesky` family), and the top-level names PyTorch keeps for some of them (det, logdet,
// slogdet, inverse, cholesky). Every function takes batches [..., n, n] of float32 or float64
// matrices on any device and is differentiable.
#include <tuple>

#include "ember/tensor.h"

namespace ember::linalg {

// X with A X = B (left = false: X A = B). B may be a batch of vectors [..., n] or matrices
// [..., n, k]; batch dims broadcast. Throws LinAlgError when A is singular.
EMBER_API Tensor solve(const Tensor& A, const Tensor& B, bool left = true);
// A^-1; throws LinAlgError when A is singular.
EMBER_API Tensor inv(const Tensor& A);
EMBER_API Tensor det(const Tensor& A);
// (sign, log|det|): sign 0 and -inf for a singular matrix.
EMBER_API std::tuple<Tensor, Tensor> slogdet(const Tensor& A);
// L with A = L L^T (upper: U with A = U^T U) from A's lower triangle; throws LinAlgError when A
// is not positive-definite.
EMBER_API Tensor cholesky(const Tensor& A, bool upper = false);

}  // namespace ember::linalg

namespace ember {

EMBER_API Tensor det(const Tensor& A);
// log(det A): NaN where det < 0, -inf where it is 0.
EMBER_API Tensor logdet(const Tensor& A);
EMBER_API std::tuple<Tensor, Tensor> slogdet(const Tensor& A);
EMBER_API Tensor inverse(const Tensor& A);
EMBER_API Tensor cholesky(const Tensor& A, bool upper = false);

}  // namespace ember
