// Matrix multiply on the CPU: out[b] = alpha * a[b] @ b[b] + beta * out[b].
// float32/float64 go to OpenBLAS. A matrix stored row-major or column-major (a transposed view)
// is passed as is with the matching transpose flag; anything else is copied to contiguous first.
// bfloat16 goes to oneDNN's bfloat16 kernels when Ember is built with it (cpu/bf16_gemm.h);
// otherwise half/bfloat16 are widened to float32 (keeping a transposed operand's layout),
// multiplied by sgemm (so they accumulate in float, the summed form too) and rounded once. Integer
// dtypes use a blocked loop accumulating in int64.
#include <cblas.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "core/tensor_factory.h"
#include "cpu/bf16_gemm.h"
#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "cpu/num_threads.h"
#include "ember/backends.h"
#include "kernel_math/dispatch.h"

namespace ember::cpu {
namespace {

// How BLAS can read a rows x cols matrix with element strides (rs, cs), if it can.
struct BlasMat {
  bool trans;  // stored column-major: pass as the transpose of a row-major matrix
  int64_t ld;
};

std::optional<BlasMat> blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  // Strides of size-1 dims carry no information, so they never prevent a layout.
  if ((cs == 1 || cols <= 1) && (rows <= 1 || rs >= std::max<int64_t>(cols, 1))) {
    return BlasMat{false, rows <= 1 ? std::max<int64_t>(cols, 1) : rs};
  }
  if ((rs == 1 || rows <= 1) && (cols <= 1 || cs >= std::max<int64_t>(rows, 1))) {
    return BlasMat{true, cols <= 1 ? std::max<int64_t>(rows, 1) : cs};
  }
  return std::nullopt;
}

bool blas_ok(const Tensor& t) {
  return blas_layout(t.size(1), t.size(2), t.stride(1), t.stride(2)).has_value();
}

Tensor contiguous_copy(CpuBackend& be, const Tensor& t, ScalarType dtype) {
  Tensor c = make_empty(t.sizes(), dtype, t.device());
  be.copy(c, t, false);
  return c;
}

int64_t batch_stride(const Tensor& t) {
  return t.size(0) == 1 ? 0 : t.stride(0);
}

// A half/bfloat16 gemm operand [B, R, C] widened to float32. A column-major operand (a
// transposed view, as linear's weight.t() and most gradient products have) stays column-major,
// so the cast reads and writes memory in order instead of striding through it as a contiguous
// copy would; a batch shared through stride 0 is widened once.
Tensor widened(CpuBackend& be, const Tensor& t) {
  const int64_t B = t.size(0), R = t.size(1), C = t.size(2);
  const auto layout = blas_layout(R, C, t.stride(1), t.stride(2));
  if (!layout || !layout->trans || R <= 1 || C <= 1) return contiguous_copy(be, t, kFloat);
  const bool shared = B > 1 && t.stride(0) == 0;
  const int64_t batches = shared ? 1 : B;
  Tensor f = make_empty({batches, C, R}, kFloat, t.device());  // each matrix column-major
  // Both sides seen transposed: the innermost dim is the stride-1 one.
  be.copy(
      f, make_view(t, {batches, C, R}, {t.stride(0), t.stride(2), t.stride(1)}, t.storage_offset()),
      false);
  return make_view(f, {B, R, C}, {shared ? 0 : R * C, 1, R}, 0);
}

template <typename T>
void blas_call(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda,
               const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  const auto fa = ta ? CblasTrans : CblasNoTrans, fb = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, fa, fb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  } else {
    cblas_dgemm(CblasRowMajor, fa, fb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  }
}

// a, b and out are already BLAS-readable; out may be row- or column-major.
template <typename T>
void gemm_blas(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta) {
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  const BlasMat la = *blas_layout(M, K, a.stride(1), a.stride(2));
  const BlasMat lb = *blas_layout(K, N, b.stride(1), b.stride(2));
  const BlasMat lc = *blas_layout(M, N, out.stride(1), out.stride(2));
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pb = static_cast<const T*>(b.data_ptr());
  T* pc = static_cast<T*>(out.data_ptr());
  const int64_t sa = batch_stride(a), sb = batch_stride(b), sc = out.stride(0);
  auto one = [&](int64_t i) {
    const T* A = pa + i * sa;
    const T* Bm = pb + i * sb;
    T* C = pc + i * sc;
    if (!lc.trans) {
      blas_call<T>(la.trans, lb.trans, M, N, K, T(alpha), A, la.ld, Bm, lb.ld, T(beta), C, lc.ld);
    } else {  // C stored column-major: compute C^T = B^T A^T into it
      blas_call<T>(!lb.trans, !la.trans, N, M, K, T(alpha), Bm, lb.ld, A, la.ld, T(beta), C, lc.ld);
    }
  };
  // Many small or mid-sized products (a convolution's per-sample GEMMs): one per thread, since
  // OpenBLAS runs single-threaded inside a parallel region and its own threading of a mid-sized
  // product costs a synchronisation per call.
  const int threads = intra_op_threads();
  const bool split = M * N * K < 64 * 64 * 64 || (B >= 2 * threads && M * N * K < 256 * 256 * 256);
  if (B > 1 && split && threads > 1 && !omp_in_parallel()) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < B; ++i) one(i);
  } else {
    for (int64_t i = 0; i < B; ++i) one(i);
  }
}

// Integer (and bool) matmul: B is packed contiguous in int64, rows of out are independent.
template <typename T>
void gemm_loop(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta) {
  using acc = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pb = static_cast<const T*>(b.data_ptr());
  T* pc = static_cast<T*>(out.data_ptr());
  const int64_t as0 = batch_stride(a), as1 = a.stride(1), as2 = a.stride(2);
  const int64_t bs0 = batch_stride(b), bs1 = b.stride(1), bs2 = b.stride(2);
  const int64_t cs0 = out.stride(0), cs1 = out.stride(1), cs2 = out.stride(2);
  const acc al = static_cast<acc>(alpha), be = static_cast<acc>(beta);
  std::vector<acc> packed(static_cast<size_t>(K * N));
  for (int64_t bi = 0; bi < B; ++bi) {
    const T* Bm = pb + bi * bs0;
    for (int64_t k = 0; k < K; ++k) {
      for (int64_t n = 0; n < N; ++n) packed[k * N + n] = static_cast<acc>(Bm[k * bs1 + n * bs2]);
    }
    const T* A = pa + bi * as0;
    T* C = pc + bi * cs0;
    const bool par = M * N * K >= kParallelGrain && intra_op_threads() > 1 && !omp_in_parallel();
#pragma omp parallel for schedule(static) if (par)
    for (int64_t m = 0; m < M; ++m) {
      std::vector<acc> row(static_cast<size_t>(N), acc(0));
      for (int64_t k = 0; k < K; ++k) {
        const acc x = static_cast<acc>(A[m * as1 + k * as2]);
        const acc* pk = packed.data() + k * N;
        for (int64_t n = 0; n < N; ++n) row[n] += x * pk[n];
      }
      for (int64_t n = 0; n < N; ++n) {
        T& c = C[m * cs1 + n * cs2];
        acc v = al * row[n];
        if (beta != 0) v += be * static_cast<acc>(c);  // beta == 0 ignores out, as BLAS does
        if constexpr (std::is_same_v<T, bool>) {
          c = v != 0;
        } else {
          c = static_cast<T>(v);
        }
      }
    }
  }
}

}  // namespace

void CpuBackend::gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha,
                      double beta) {
  EMBER_CHECK(out.dim() == 3 && a.dim() == 3 && b.dim() == 3, ValueError,
              "gemm expects 3-D tensors, got ", a.sizes(), " @ ", b.sizes(), " -> ", out.sizes());
  intra_op_threads();  // OpenBLAS and oneDNN read this thread's OpenMP setting
  const ScalarType dt = out.dtype();
  // 16-bit: widen each operand once, multiply (or sum the products) in float32, round once.
  if ((dt == kHalf || dt == kBFloat16) && a.dtype() == dt && b.dtype() == dt) {
    if (out.numel() == 0) return;
    if (dt == kBFloat16 && backends::mkldnn::enabled() && bf16_gemm(out, a, b, alpha, beta)) {
      return;  // oneDNN, when built in and allowed
    }
    Tensor af = widened(*this, a), bf = widened(*this, b);
    Tensor of = make_empty(out.sizes(), kFloat, out.device());
    if (beta != 0) copy(of, out, false);
    gemm(of, af, bf, alpha, beta);
    copy(out, of, false);
    return;
  }
  const int64_t products = std::max(a.size(0), b.size(0));
  if (out.size(0) == 1 && products > 1) {
    gemm_summed(out, a, b, alpha, beta);
    return;
  }
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  EMBER_CHECK(a.size(1) == M && b.size(1) == K && b.size(2) == N &&
                  (a.size(0) == B || a.size(0) == 1) && (b.size(0) == B || b.size(0) == 1),
              ValueError, "gemm: shapes ", a.sizes(), " @ ", b.sizes(), " -> ", out.sizes(),
              " do not match");
  EMBER_CHECK(a.dtype() == out.dtype() && b.dtype() == out.dtype(), TypeError,
              "gemm: expected one dtype, got ", to_string(a.dtype()), ", ", to_string(b.dtype()),
              " -> ", to_string(out.dtype()));
  if (out.numel() == 0) return;
  if (K == 0) {  // empty sum: out = beta * out
    if (beta == 0) {
      fill(out, 0);
    } else if (beta != 1) {
      Tensor s = make_empty({}, out.dtype(), out.device());
      fill(s, beta);
      binary(BinaryOp::Mul, out, out, s, OpParams{});
    }
    return;
  }
  if (dt == kFloat || dt == kDouble) {
    Tensor ac = blas_ok(a) ? a : contiguous_copy(*this, a, dt);
    Tensor bc = blas_ok(b) ? b : contiguous_copy(*this, b, dt);
    if (blas_ok(out)) {
      if (dt == kFloat) {
        gemm_blas<float>(out, ac, bc, alpha, beta);
      } else {
        gemm_blas<double>(out, ac, bc, alpha, beta);
      }
      return;
    }
    Tensor oc = make_empty(out.sizes(), dt, out.device());
    if (beta != 0) copy(oc, out, false);
    if (dt == kFloat) {
      gemm_blas<float>(oc, ac, bc, alpha, beta);
    } else {
      gemm_blas<double>(oc, ac, bc, alpha, beta);
    }
    copy(out, oc, false);
    return;
  }
  EMBER_DISPATCH_ALL(dt, "matmul", [&] {
    if constexpr (std::is_integral_v<scalar_t>) {
      gemm_loop<scalar_t>(out, a, b, alpha, beta);
    } else {
      throw TypeError(detail::str_cat("matmul: unsupported dtype ", to_string(dt)));
    }
  });
}

// out[0] = alpha * sum_i a[i] @ b[i] + beta * out[0]. Each thread sums a contiguous share of the
// products (one BLAS call each, accumulating with beta = 1) into its own buffer, thread 0 into
// out; the buffers are then added in thread order, so the result does not depend on timing.
void CpuBackend::gemm_summed(const Tensor& out, const Tensor& a, const Tensor& b, double alpha,
                             double beta) {
  const int64_t products = std::max(a.size(0), b.size(0));
  auto part = [](const Tensor& t, int64_t i) { return gemm_batch_item(t, i); };
  const int64_t shares = omp_in_parallel() ? 1 : std::min<int64_t>(intra_op_threads(), products);
  std::vector<Tensor> targets{out};
  for (int64_t s = 1; s < shares; ++s)
    targets.push_back(make_empty(out.sizes(), out.dtype(), out.device()));
  std::vector<Tensor> as, bs;
  for (int64_t i = 0; i < products; ++i) {
    as.push_back(part(a, i));
    bs.push_back(part(b, i));
  }
  auto run_share = [&](int64_t s) {
    const int64_t begin = products * s / shares, end = products * (s + 1) / shares;
    for (int64_t i = begin; i < end; ++i) {
      gemm(targets[s], as[i], bs[i], alpha, i > begin ? 1.0 : (s == 0 ? beta : 0.0));
    }
  };
  if (shares > 1) {
#pragma omp parallel for num_threads(shares) schedule(static)
    for (int64_t s = 0; s < shares; ++s) run_share(s);
  } else {
    run_share(0);
  }
  for (int64_t s = 1; s < shares; ++s)
    binary(BinaryOp::Add, out, out, targets[s], OpParams{1.0, 0.0});
}

}  // namespace ember::cpu
