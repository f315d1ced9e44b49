// The decomposition families on CUDA: one thread per matrix runs kernel_math's Householder QR
// (LAPACK's geqr2/org2r arithmetic) and Jacobi eigendecomposition and SVD. Like the LU kernels in
// linalg.cu this is the reference design, right for the small matrices of parametrisations,
// whitening and per-sample fits; large matrices want cuSOLVER (docs/linalg.md).
#include <algorithm>
#include <cstdint>

#include "core/tensor_factory.h"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "kernel_math/householder.h"
#include "kernel_math/jacobi.h"

namespace ember::cuda {
namespace {

// A grid-stride loop over the matrices of a batch.
#define EMBER_FOR_EACH_MATRIX(b, batch)                                         \
  for (int64_t b = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; b < (batch); \
       b += int64_t(gridDim.x) * blockDim.x)

template <typename T>
__global__ void geqrf_kernel(T* a, T* tau, int64_t batch, int64_t m, int64_t n) {
  const int64_t k = m < n ? m : n;
  EMBER_FOR_EACH_MATRIX(b, batch) {
    householder_qr_column_major(a + b * m * n, tau + b * k, m, n);
  }
}

template <typename T>
__global__ void householder_product_kernel(T* q, const T* tau, int64_t batch, int64_t m, int64_t c,
                                           int64_t k) {
  EMBER_FOR_EACH_MATRIX(b, batch) {
    householder_product_column_major(q + b * m * c, tau + b * k, m, c, k);
  }
}

// `work` receives each matrix made symmetric from the lower triangle of `vectors`, which then
// receives the eigenvectors.
template <typename T>
__global__ void eigh_kernel(T* vectors, T* work, T* values, int32_t* info, int64_t batch,
                            int64_t n) {
  EMBER_FOR_EACH_MATRIX(b, batch) {
    T* v = vectors + b * n * n;
    T* a = work + b * n * n;
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = j; i < n; ++i) {
        a[i + j * n] = v[i + j * n];
        a[j + i * n] = v[i + j * n];
      }
    }
    info[b] = jacobi_eigh(JacobiMatrix<T>{a, 1, n}, JacobiMatrix<T>{v, 1, n}, values + b * n, n);
  }
}

// One-sided Jacobi works on a tall matrix: A itself (in u) when m >= n, giving U in place and
// Vh = V^T written transposed; A^T (in vh) otherwise, whose left vectors are A's Vh read as
// they lie and whose right vectors are A's U.
template <typename T>
__global__ void svd_kernel(const T* a, T* u, T* s, T* vh, int32_t* info, int64_t batch, int64_t m,
                           int64_t n) {
  const int64_t k = m < n ? m : n;
  EMBER_FOR_EACH_MATRIX(b, batch) {
    const T* ab = a + b * m * n;
    T* ub = u + b * m * k;
    T* vb = vh + b * k * n;
    T* tall = m >= n ? ub : vb;
    for (int64_t i = 0; i < m * n; ++i) tall[i] = ab[i];
    if (m >= n) {
      info[b] = jacobi_svd(JacobiMatrix<T>{ub, 1, m}, JacobiMatrix<T>{vb, n, 1}, s + b * k, m, n);
    } else {
      info[b] = jacobi_svd(JacobiMatrix<T>{vb, m, 1}, JacobiMatrix<T>{ub, 1, m}, s + b * k, n, m);
    }
  }
}

#undef EMBER_FOR_EACH_MATRIX

LaunchConfig per_matrix(const Tensor& t) {
  return LaunchConfig{grid_for(t.size(0)), kThreads, 0, detail::stream_of(t)};
}

}  // namespace

void CudaBackend::geqrf(const Tensor& a, const Tensor& tau) {
  if (a.numel() == 0) return;
  check_operands("geqrf", {&a, &tau});
  DeviceGuard guard(a.device().index());
  const int64_t batch = a.size(0), n = a.size(1), m = a.size(2);
  if (a.scalar_type() == kDouble) {
    launch_kernel(EMBER_KERNEL(geqrf_kernel<double>), per_matrix(a), a.data_ptr<double>(),
                  tau.data_ptr<double>(), batch, m, n);
  } else {
    launch_kernel(EMBER_KERNEL(geqrf_kernel<float>), per_matrix(a), a.data_ptr<float>(),
                  tau.data_ptr<float>(), batch, m, n);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::householder_product(const Tensor& q, const Tensor& tau) {
  if (q.numel() == 0) return;
  check_operands("householder_product", {&q, &tau});
  DeviceGuard guard(q.device().index());
  const int64_t batch = q.size(0), c = q.size(1), m = q.size(2), k = tau.size(1);
  if (q.scalar_type() == kDouble) {
    launch_kernel(EMBER_KERNEL(householder_product_kernel<double>), per_matrix(q),
                  q.data_ptr<double>(), tau.data_ptr<double>(), batch, m, c, k);
  } else {
    launch_kernel(EMBER_KERNEL(householder_product_kernel<float>), per_matrix(q),
                  q.data_ptr<float>(), tau.data_ptr<float>(), batch, m, c, k);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::eigh(const Tensor& vectors, const Tensor& values, const Tensor& info) {
  if (vectors.numel() == 0) return;
  check_operands("eigh", {&vectors, &values, &info});
  DeviceGuard guard(vectors.device().index());
  const int64_t batch = vectors.size(0), n = vectors.size(1);
  const Tensor work = make_empty(vectors.sizes(), vectors.scalar_type(), vectors.device());
  if (vectors.scalar_type() == kDouble) {
    launch_kernel(EMBER_KERNEL(eigh_kernel<double>), per_matrix(vectors),
                  vectors.data_ptr<double>(), work.data_ptr<double>(), values.data_ptr<double>(),
                  info.data_ptr<int32_t>(), batch, n);
  } else {
    launch_kernel(EMBER_KERNEL(eigh_kernel<float>), per_matrix(vectors), vectors.data_ptr<float>(),
                  work.data_ptr<float>(), values.data_ptr<float>(), info.data_ptr<int32_t>(), batch,
                  n);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::svd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh,
                      const Tensor& info) {
  if (a.numel() == 0) return;
  check_operands("svd", {&a, &s, &info});
  DeviceGuard guard(a.device().index());
  const int64_t batch = a.size(0), n = a.size(1), m = a.size(2), k = std::min(m, n);
  // Jacobi computes the vectors on the way to the values: without u and vh, scratch takes them.
  const Tensor u_or_scratch =
      u.defined() ? u : make_empty({batch, k, m}, a.scalar_type(), a.device());
  const Tensor vh_or_scratch =
      vh.defined() ? vh : make_empty({batch, n, k}, a.scalar_type(), a.device());
  if (a.scalar_type() == kDouble) {
    launch_kernel(EMBER_KERNEL(svd_kernel<double>), per_matrix(a), a.data_ptr<double>(),
                  u_or_scratch.data_ptr<double>(), s.data_ptr<double>(),
                  vh_or_scratch.data_ptr<double>(), info.data_ptr<int32_t>(), batch, m, n);
  } else {
    launch_kernel(EMBER_KERNEL(svd_kernel<float>), per_matrix(a), a.data_ptr<float>(),
                  u_or_scratch.data_ptr<float>(), s.data_ptr<float>(),
                  vh_or_scratch.data_ptr<float>(), info.data_ptr<int32_t>(), batch, m, n);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda
