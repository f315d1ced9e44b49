#pragma once
// torch::linalg's matrix functions. The square-matrix ones are built on an LU factorisation with
// partial pivoting (src/ops/linalg_lu.cpp; the `lu_factor` and `lu_solve` backend families) or on a
// Cholesky one (the `cholesky` family), and the top-level names PyTorch keeps for some of them
// (det, logdet, slogdet, inverse, cholesky). Every function takes batches [..., n, n] of float32 or
// float64 matrices on any device and is differentiable.
#include <optional>
#include <string_view>
#include <tuple>

#include "ember/scalar.h"
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

// The decompositions (src/ops/linalg_qr.cpp, linalg_eigh.cpp, linalg_svd.cpp) take batches
// [..., m, n] of float32 or float64 matrices. Each is differentiable where PyTorch's is.
//
// (Q, R) with A = Q R. mode "reduced": Q [..., m, k], R [..., k, n] with k = min(m, n);
// "complete": Q [..., m, m], R [..., m, n]; "r": R alone (Q is an empty tensor).
EMBER_API std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode = "reduced");
// (eigenvalues [..., n] ascending, eigenvectors [..., n, n] as columns) of the symmetric matrices
// read from A's lower triangle (UPLO "U": the upper one).
EMBER_API std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view UPLO = "L");
EMBER_API Tensor eigvalsh(const Tensor& A, std::string_view UPLO = "L");
// (U, S, Vh) with A = U diag(S) Vh, S descending. full_matrices: U [..., m, m], Vh [..., n, n];
// otherwise U [..., m, k], Vh [..., k, n].
EMBER_API std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices = true);
EMBER_API Tensor svdvals(const Tensor& A);

// The functions built on them and on the reductions (src/ops/linalg_norms.cpp,
// linalg_functions.cpp).
//
// The vector ord-norm over dim (every element when empty); inf/-inf the largest/smallest
// magnitude, 0 the count of non-zeros. dtype: computed in and returned as that dtype.
EMBER_API Tensor vector_norm(const Tensor& x, const Scalar& ord = 2, IntArrayRef dim = {},
                             bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
// The matrix norm over the two dims `dim`: ord 1/-1 (max/min column sum), inf/-inf (row sums),
// 2/-2 (largest/smallest singular value), or the string forms "fro" and "nuc".
EMBER_API Tensor matrix_norm(const Tensor& A, const Scalar& ord, IntArrayRef dim = {-2, -1},
                             bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor matrix_norm(const Tensor& A, std::string_view ord = "fro",
                             IntArrayRef dim = {-2, -1}, bool keepdim = false,
                             std::optional<ScalarType> dtype = std::nullopt);
// torch.linalg.norm (dim empty: unset): with ord unset, the 2-norm of the flattened input or a
// vector norm over one dim, the Frobenius norm over two; with ord set, a vector norm over one dim
// and a matrix norm over two, dim unset then needing a 1-D or 2-D input.
EMBER_API Tensor norm(const Tensor& A, const std::optional<Scalar>& ord = std::nullopt,
                      IntArrayRef dim = {}, bool keepdim = false,
                      std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor norm(const Tensor& A, std::string_view ord, IntArrayRef dim = {},
                      bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
// The Moore-Penrose pseudo-inverse through the SVD (hermitian: through eigh), singular values at
// or below max(atol, rtol * largest) dropped. libtorch's form takes rcond as rtol with atol 0;
// PyTorch's Python default (both unset) is rtol = eps * max(m, n).
EMBER_API Tensor pinv(const Tensor& A, double rcond = 1e-15, bool hermitian = false);
EMBER_API Tensor pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
                      bool hermitian = false);
// The number of singular values above max(atol, rtol * largest); both unset: rtol = eps*max(m,n).
EMBER_API Tensor matrix_rank(const Tensor& A, std::optional<double> atol = std::nullopt,
                             std::optional<double> rtol = std::nullopt, bool hermitian = false);
// e^A of square matrices, by scaling and squaring with a Taylor/Pade approximant.
EMBER_API Tensor matrix_exp(const Tensor& A);

// The LU factorisation as public functions (src/ops/linalg_lu_public.cpp). lu_factor: (LU,
// pivots) with A = P L U packed as LAPACK's getrf (pivots int32, 1-based); pivot = false is
// refused on the CPU as PyTorch does. lu: (P, L, U) unpacked. lu_solve: X with A X = B (left =
// false: X A = B; adjoint: A^T) from lu_factor's output.
EMBER_API std::tuple<Tensor, Tensor> lu_factor(const Tensor& A, bool pivot = true);
// (LU, pivots, info), info [...] int32 as getrf's; throws only when check_errors.
EMBER_API std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& A, bool pivot = true,
                                                          bool check_errors = false);
EMBER_API std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& A, bool pivot = true);
EMBER_API Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true,
                          bool adjoint = false);
// X with A X = B for triangular A (upper, or lower), left = false: X A = B; unitriangular:
// A's diagonal taken as ones.
EMBER_API Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                                  bool unitriangular = false);
// inv, cholesky and solve with their info instead of an exception (unless check_errors).
EMBER_API std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors = false);
EMBER_API std::tuple<Tensor, Tensor> cholesky_ex(const Tensor& A, bool upper = false,
                                                 bool check_errors = false);
EMBER_API std::tuple<Tensor, Tensor> solve_ex(const Tensor& A, const Tensor& B, bool left = true,
                                              bool check_errors = false);
// (solution, residuals, rank, singular_values) of min ||A X - B|| as torch.linalg.lstsq with its
// CPU default driver "gelsy" (and "gels", "gelsd", "gelss"): residuals only for full-rank tall
// A with a driver other than gelsy, rank and singular values as the driver gives them.
EMBER_API std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(
    const Tensor& A, const Tensor& B, std::optional<double> rcond = std::nullopt,
    std::optional<std::string_view> driver = std::nullopt);
// The first n columns of H_1 ... H_k from reflectors A [..., m, n] and tau [..., k] (geqrf's).
EMBER_API Tensor householder_product(const Tensor& A, const Tensor& tau);

// Compositions of other ops (src/ops/linalg_composites.cpp).
EMBER_API Tensor cross(const Tensor& input, const Tensor& other, int64_t dim = -1);
EMBER_API Tensor diagonal(const Tensor& A, int64_t offset = 0, int64_t dim1 = -2,
                          int64_t dim2 = -1);
EMBER_API Tensor matmul(const Tensor& input, const Tensor& other);
EMBER_API Tensor matrix_power(const Tensor& A, int64_t n);
// The product of the matrices (first and last may be vectors), in the cheapest order.
EMBER_API Tensor multi_dot(TensorList tensors);
EMBER_API Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim = -1);
// Columns x^0 .. x^(N-1) (N unset: x's length).
EMBER_API Tensor vander(const Tensor& x, std::optional<int64_t> N = std::nullopt);
EMBER_API Tensor tensorinv(const Tensor& A, int64_t ind = 2);
// dims empty: none moved to the end.
EMBER_API Tensor tensorsolve(const Tensor& A, const Tensor& B, IntArrayRef dims = {});
// The condition number in the norm p (unset: 2, the ratio of extreme singular values).
EMBER_API Tensor cond(const Tensor& A, const std::optional<Scalar>& p = std::nullopt);
EMBER_API Tensor cond(const Tensor& A, std::string_view p);

// A string literal names the string form: without these, "fro" would convert to a Scalar (through
// bool) as readily as to a string_view, and the call would be ambiguous.
inline Tensor matrix_norm(const Tensor& A, const char* ord, IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return matrix_norm(A, std::string_view(ord), dim, keepdim, dtype);
}
inline Tensor norm(const Tensor& A, const char* ord, IntArrayRef dim = {}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt) {
  return norm(A, std::string_view(ord), dim, keepdim, dtype);
}
inline Tensor cond(const Tensor& A, const char* p) {
  return cond(A, std::string_view(p));
}

}  // namespace ember::linalg

namespace ember {

EMBER_API Tensor det(const Tensor& A);
// log(det A): NaN where det < 0, -inf where it is 0.
EMBER_API Tensor logdet(const Tensor& A);
EMBER_API std::tuple<Tensor, Tensor> slogdet(const Tensor& A);
EMBER_API Tensor inverse(const Tensor& A);
EMBER_API Tensor cholesky(const Tensor& A, bool upper = false);
// X with A X = B for A = L L^T given its factor L (upper: A = U^T U); B [..., n, k].
EMBER_API Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper = false);
EMBER_API Tensor matrix_exp(const Tensor& A);
// torch.qr / torch.svd (deprecated in PyTorch, still called): some = true gives the reduced forms.
// svd returns V, not Vh.
EMBER_API std::tuple<Tensor, Tensor> qr(const Tensor& A, bool some = true);
EMBER_API std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool some = true,
                                                 bool compute_uv = true);
EMBER_API Tensor pinverse(const Tensor& A, double rcond = 1e-15);

}  // namespace ember
