// The LU and Cholesky families on the CPU: LAPACK's getrf, getrs and potrf, which OpenBLAS ships,
// one matrix per call and the batch spread over the threads (a single large matrix lets OpenBLAS
// thread instead). Layouts as core/backend.h says: every matrix column-major, LAPACK's own.
#include <climits>
#include <cstddef>

#include "cpu/cpu_backend.h"
#include "cpu/loop.h"

// LAPACK's Fortran entry points (LP64: 32-bit integers), with the hidden length of `trans`.
extern "C" {
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda,
             const int* ipiv, float* b, const int* ldb, int* info, size_t trans_len);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, size_t trans_len);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t uplo_len);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);
}

namespace ember::cpu {
namespace {

void getrf(float* a, int n, int* ipiv, int* info) {
  sgetrf_(&n, &n, a, &n, ipiv, info);
}
void getrf(double* a, int n, int* ipiv, int* info) {
  dgetrf_(&n, &n, a, &n, ipiv, info);
}
void getrs(char trans, int n, int nrhs, const float* a, const int* ipiv, float* b, int* info) {
  sgetrs_(&trans, &n, &nrhs, a, &n, ipiv, b, &n, info, 1);
}
void getrs(char trans, int n, int nrhs, const double* a, const int* ipiv, double* b, int* info) {
  dgetrs_(&trans, &n, &nrhs, a, &n, ipiv, b, &n, info, 1);
}

void potrf(float* a, int n, int* info) {
  spotrf_("L", &n, a, &n, info, 1);
}
void potrf(double* a, int n, int* info) {
  dpotrf_("L", &n, a, &n, info, 1);
}

int lapack_size(int64_t n, const char* what) {
  EMBER_CHECK(n <= INT_MAX, ValueError, what, ": matrices of size ", n,
              " exceed LAPACK's 32-bit sizes");
  return static_cast<int>(n);
}

template <typename T>
void factor_batch(const Tensor& lu, const Tensor& pivots, const Tensor& info) {
  const int64_t batch = lu.size(0);
  const int n = lapack_size(lu.size(1), "lu_factor");
  T* a = lu.data_ptr<T>();
  int* piv = pivots.data_ptr<int32_t>();
  int* inf = info.data_ptr<int32_t>();
  parallel_for(batch, int64_t(n) * n * n, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) getrf(a + b * n * n, n, piv + b * n, inf + b);
  });
}

template <typename T>
void solve_batch(const Tensor& x, const Tensor& lu, const Tensor& pivots, bool transpose) {
  const int64_t batch = lu.size(0);
  const int n = lapack_size(lu.size(1), "lu_solve");
  const int k = lapack_size(x.size(1), "lu_solve");
  const T* a = lu.data_ptr<T>();
  const int* piv = pivots.data_ptr<int32_t>();
  T* rhs = x.data_ptr<T>();
  parallel_for(batch, int64_t(n) * n * k, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      int info = 0;  // getrs reports only bad arguments, which the sizes above rule out
      getrs(transpose ? 'T' : 'N', n, k, a + b * n * n, piv + b * n, rhs + b * n * k, &info);
    }
  });
}

template <typename T>
void cholesky_batch(const Tensor& factor, const Tensor& info) {
  const int64_t batch = factor.size(0);
  const int n = lapack_size(factor.size(1), "cholesky");
  T* a = factor.data_ptr<T>();
  int* inf = info.data_ptr<int32_t>();
  parallel_for(batch, int64_t(n) * n * n, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) potrf(a + b * n * n, n, inf + b);
  });
}

}  // namespace

void CpuBackend::cholesky(const Tensor& factor, const Tensor& info) {
  if (factor.numel() == 0) return;
  if (factor.scalar_type() == kDouble) {
    cholesky_batch<double>(factor, info);
  } else {
    cholesky_batch<float>(factor, info);
  }
}

void CpuBackend::lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info) {
  if (lu.numel() == 0) return;
  if (lu.scalar_type() == kDouble) {
    factor_batch<double>(lu, pivots, info);
  } else {
    factor_batch<float>(lu, pivots, info);
  }
}

void CpuBackend::lu_solve(const Tensor& x, const Tensor& lu, const Tensor& pivots, bool transpose) {
  if (x.numel() == 0) return;
  if (lu.scalar_type() == kDouble) {
    solve_batch<double>(x, lu, pivots, transpose);
  } else {
    solve_batch<float>(x, lu, pivots, transpose);
  }
}

}  // namespace ember::cpu
