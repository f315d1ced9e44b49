// The decomposition families on the CPU: LAPACK's geqrf, orgqr, syevd and gesdd, which OpenBLAS
// ships, one matrix per call and the batch spread over the threads, each thread with its own
// workspace (sized by LAPACK's query). Layouts as core/backend.h says: column-major matrices.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cpu/loop.h"

// LAPACK's Fortran entry points (LP64: 32-bit integers), with the hidden lengths of the chars.
extern "C" {
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work,
             const int* lwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau,
             float* work, const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
             double* work, const int* lwork, int* info);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w,
             float* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t,
             size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
             double* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t,
             size_t);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s,
             float* u, const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork,
             int* iwork, int* info, size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s,
             double* u, const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork,
             int* iwork, int* info, size_t);
}

namespace ember::cpu {
namespace {

// One overload set per routine, so the batch loops below are written once for both dtypes. A
// negative lwork is LAPACK's workspace query (-1), which writes the size into work[0].
void geqrf(int m, int n, float* a, float* tau, float* work, int lwork, int* info) {
  sgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
void geqrf(int m, int n, double* a, double* tau, double* work, int lwork, int* info) {
  dgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, float* a, const float* tau, float* work, int lwork, int* info) {
  sorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, double* a, const double* tau, double* work, int lwork, int* info) {
  dorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
void syevd(int n, float* a, float* w, float* work, int lwork, int* iwork, int liwork, int* info) {
  ssyevd_("V", "L", &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
void syevd(int n, double* a, double* w, double* work, int lwork, int* iwork, int liwork,
           int* info) {
  dsyevd_("V", "L", &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
// jobz 'S' (the reduced vectors), or 'N' (singular values only) when u and vt are null.
void gesdd(int m, int n, float* a, float* s, float* u, float* vt, float* work, int lwork,
           int* iwork, int* info) {
  const int k = std::min(m, n);
  const int lda = std::max(m, 1), ldu = u ? std::max(m, 1) : 1, ldvt = u ? std::max(k, 1) : 1;
  sgesdd_(u ? "S" : "N", &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
void gesdd(int m, int n, double* a, double* s, double* u, double* vt, double* work, int lwork,
           int* iwork, int* info) {
  const int k = std::min(m, n);
  const int lda = std::max(m, 1), ldu = u ? std::max(m, 1) : 1, ldvt = u ? std::max(k, 1) : 1;
  dgesdd_(u ? "S" : "N", &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}

int lapack_size(int64_t n, const char* what) {
  EMBER_CHECK(n <= INT_MAX, ValueError, what, ": matrices of size ", n,
              " exceed LAPACK's 32-bit sizes");
  return static_cast<int>(n);
}

// The workspace size LAPACK's query returned in work[0] (a float, rounded up).
template <typename T>
int queried(T size) {
  return std::max(1, static_cast<int>(size + T(0.5)));
}

template <typename T>
void geqrf_batch(const Tensor& a, const Tensor& tau) {
  const int64_t batch = a.size(0);
  const int n = lapack_size(a.size(1), "geqrf"), m = lapack_size(a.size(2), "geqrf");
  const int64_t k = std::min(m, n);
  T* pa = a.data_ptr<T>();
  T* ptau = tau.data_ptr<T>();
  T size = 0;
  int info = 0;
  geqrf(m, n, pa, ptau, &size, -1, &info);
  const int lwork = queried(size);
  parallel_for(batch, int64_t(m) * n * k, [&](int64_t begin, int64_t end) {
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t b = begin; b < end; ++b) {
      int status = 0;  // geqrf reports only bad arguments, which the sizes rule out
      geqrf(m, n, pa + b * m * n, ptau + b * k, work.data(), lwork, &status);
    }
  });
}

template <typename T>
void orgqr_batch(const Tensor& q, const Tensor& tau) {
  const int64_t batch = q.size(0);
  const int c = lapack_size(q.size(1), "householder_product");
  const int m = lapack_size(q.size(2), "householder_product");
  const int k = lapack_size(tau.size(1), "householder_product");
  T* pq = q.data_ptr<T>();
  const T* ptau = tau.data_ptr<T>();
  T size = 0;
  int info = 0;
  orgqr(m, c, k, pq, ptau, &size, -1, &info);
  const int lwork = queried(size);
  parallel_for(batch, int64_t(m) * c * std::max(k, 1), [&](int64_t begin, int64_t end) {
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t b = begin; b < end; ++b) {
      int status = 0;
      orgqr(m, c, k, pq + b * m * c, ptau + b * k, work.data(), lwork, &status);
    }
  });
}

template <typename T>
void syevd_batch(const Tensor& vectors, const Tensor& values, const Tensor& info) {
  const int64_t batch = vectors.size(0);
  const int n = lapack_size(vectors.size(1), "eigh");
  T* pv = vectors.data_ptr<T>();
  T* pw = values.data_ptr<T>();
  int* pinfo = info.data_ptr<int32_t>();
  T size = 0;
  int isize = 0, status = 0;
  syevd(n, pv, pw, &size, -1, &isize, -1, &status);
  const int lwork = queried(size), liwork = std::max(1, isize);
  parallel_for(batch, int64_t(n) * n * n, [&](int64_t begin, int64_t end) {
    std::vector<T> work(static_cast<size_t>(lwork));
    std::vector<int> iwork(static_cast<size_t>(liwork));
    for (int64_t b = begin; b < end; ++b) {
      syevd(n, pv + b * n * n, pw + b * n, work.data(), lwork, iwork.data(), liwork, pinfo + b);
    }
  });
}

template <typename T>
void gesdd_batch(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh,
                 const Tensor& info) {
  const int64_t batch = a.size(0);
  const int n = lapack_size(a.size(1), "svd"), m = lapack_size(a.size(2), "svd");
  const int64_t k = std::min(m, n);
  T* pa = a.data_ptr<T>();
  const bool vectors = u.defined();
  T* pu = vectors ? u.data_ptr<T>() : nullptr;
  T* ps = s.data_ptr<T>();
  T* pvh = vectors ? vh.data_ptr<T>() : nullptr;
  int* pinfo = info.data_ptr<int32_t>();
  std::vector<int> query_iwork(static_cast<size_t>(8 * k));
  T size = 0;
  int status = 0;
  gesdd(m, n, pa, ps, pu, pvh, &size, -1, query_iwork.data(), &status);
  const int lwork = queried(size);
  parallel_for(batch, int64_t(m) * n * k, [&](int64_t begin, int64_t end) {
    std::vector<T> work(static_cast<size_t>(lwork));
    std::vector<int> iwork(static_cast<size_t>(8 * k));
    for (int64_t b = begin; b < end; ++b) {
      gesdd(m, n, pa + b * m * n, ps + b * k, vectors ? pu + b * m * k : nullptr,
            vectors ? pvh + b * k * n : nullptr, work.data(), lwork, iwork.data(), pinfo + b);
    }
  });
}

}  // namespace

void CpuBackend::geqrf(const Tensor& a, const Tensor& tau) {
  if (a.numel() == 0) return;
  if (a.scalar_type() == kDouble) {
    geqrf_batch<double>(a, tau);
  } else {
    geqrf_batch<float>(a, tau);
  }
}

void CpuBackend::householder_product(const Tensor& q, const Tensor& tau) {
  if (q.numel() == 0) return;
  if (q.scalar_type() == kDouble) {
    orgqr_batch<double>(q, tau);
  } else {
    orgqr_batch<float>(q, tau);
  }
}

void CpuBackend::eigh(const Tensor& vectors, const Tensor& values, const Tensor& info) {
  if (vectors.numel() == 0) return;
  if (vectors.scalar_type() == kDouble) {
    syevd_batch<double>(vectors, values, info);
  } else {
    syevd_batch<float>(vectors, values, info);
  }
}

void CpuBackend::svd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh,
                     const Tensor& info) {
  if (a.numel() == 0) return;
  if (a.scalar_type() == kDouble) {
    gesdd_batch<double>(a, u, s, vh, info);
  } else {
    gesdd_batch<float>(a, u, s, vh, info);
  }
}

}  // namespace ember::cpu
