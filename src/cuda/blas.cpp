// GEMM on CUDA through cuBLAS: float32 (TF32 tensor cores when matmul_allow_tf32 is set),
// float64, and float16/bfloat16 on tensor cores with float32 accumulation; batched through
// strided-batched calls (a single product through cublasGemmEx, as PyTorch's mm). Row-major
// C = A B is computed as column-major C^T = B^T A^T, so row-major operands are passed as they
// are. One handle per device and thread, bound on every call to the current stream and to that
// stream's workspace from the caching allocator (cublas_workspace.h).
#include <cublas_v2.h>

#include <algorithm>
#include <unordered_map>

#include "core/device_audit.h"
#include "core/tensor_factory.h"
#include "cuda/cublas_workspace.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_internal.h"

namespace ember::cuda {
namespace {

void check_cublas(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  const std::string msg = ::ember::detail::str_cat("cuBLAS error ", cublasGetStatusName(s), " (",
                                                   cublasGetStatusString(s), ") in ", what);
  if (s == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemoryError(msg);
  throw Error(msg);
}

cublasHandle_t handle_for(int device) {
  thread_local std::unordered_map<int, cublasHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasHandle_t h = nullptr;
  check_cublas(cublasCreate(&h), "cublasCreate");
  handles.emplace(device, h);
  return h;
}

// How a [B, R, C] operand is handed to cuBLAS: as is (row-major rows), or transposed.
struct Operand {
  Tensor t;
  cublasOperation_t op;  // as seen by cuBLAS's column-major view
  int64_t ld, batch_stride;
};

// Row-major [R, C] with unit column stride is column-major [C, R] (no transpose); with unit row
// stride it is the transpose of column-major [R, C]. Anything else is made contiguous first.
Operand prepare(const Tensor& x) {
  const int64_t R = x.size(1), C = x.size(2);
  const int64_t bs = x.size(0) == 1 ? 0 : x.stride(0);
  if ((x.stride(2) == 1 || C == 1) && x.stride(1) >= std::max<int64_t>(C, 1)) {
    return {x, CUBLAS_OP_N, std::max<int64_t>(x.stride(1), std::max<int64_t>(C, 1)), bs};
  }
  if ((x.stride(1) == 1 || R == 1) && x.stride(2) >= std::max<int64_t>(R, 1)) {
    return {x, CUBLAS_OP_T, std::max<int64_t>(x.stride(2), std::max<int64_t>(R, 1)), bs};
  }
  Tensor c = make_empty(x.sizes(), x.dtype(), x.device());
  cast_copy(c, x);
  return {c, CUBLAS_OP_N, std::max<int64_t>(C, 1), x.size(0) == 1 ? 0 : R * C};
}

}  // namespace

void CudaBackend::gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha,
                       double beta) {
  check_operands("matmul", {&out, &a, &b});
  EMBER_CHECK(out.dim() == 3 && a.dim() == 3 && b.dim() == 3, ValueError,
              "gemm expects 3-D operands, got ", a.sizes(), " and ", b.sizes());
  const int64_t products = std::max(a.size(0), b.size(0));
  if (out.size(0) == 1 && products > 1) {  // summed form: accumulate on the stream, in order
    for (int64_t i = 0; i < products; ++i) {
      gemm(out, gemm_batch_item(a, i), gemm_batch_item(b, i), alpha, i == 0 ? beta : 1.0);
    }
    return;
  }
  const ScalarType dt = out.dtype();
  EMBER_CHECK(a.dtype() == dt && b.dtype() == dt, TypeError,
              "expected m1 and m2 to have the same dtype, but got: ", to_string(a.dtype()),
              " != ", to_string(b.dtype()));
  cudaDataType_t type;
  cublasComputeType_t compute;
  switch (dt) {
    case kFloat:
      type = CUDA_R_32F;
      compute = matmul_allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case kDouble:
      type = CUDA_R_64F;
      compute = CUBLAS_COMPUTE_64F;
      break;
    case kHalf:
      type = CUDA_R_16F;
      compute = CUBLAS_COMPUTE_32F;
      break;
    case kBFloat16:
      type = CUDA_R_16BF;
      compute = CUBLAS_COMPUTE_32F;
      break;
    default:
      throw TypeError(
          ::ember::detail::str_cat("\"addmm_cuda\" not implemented for '", to_string(dt), "'"));
  }
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  EMBER_CHECK(a.size(1) == M && b.size(1) == K && b.size(2) == N &&
                  (a.size(0) == B || a.size(0) == 1) && (b.size(0) == B || b.size(0) == 1),
              ValueError, "mat1 and mat2 shapes cannot be multiplied (", a.sizes(), " and ",
              b.sizes(), ") into ", out.sizes());
  if (out.numel() == 0) return;
  if (K == 0) {  // nothing to multiply: out = beta * out
    if (beta == 0) {
      fill(out, 0);
    } else {
      binary(BinaryOp::Mul, out, out, make_empty({}, dt, out.device()).fill_(beta), {});
    }
    return;
  }
  const int device = out.device().index();
  DeviceGuard guard(device);
  cublasHandle_t h = handle_for(device);
  cudaStream_t stream = detail::current_cuda_stream(device);
  check_cublas(cublasSetStream(h, stream), "cublasSetStream");
  // After cublasSetStream, which puts the handle back on cuBLAS's own pool. `ws` is held until
  // the GEMM is queued.
  const std::shared_ptr<const CublasWorkspace> ws = cublas_workspace(device, stream);
  check_cublas(cublasSetWorkspace(h, ws->data.get(), ws->bytes), "cublasSetWorkspace");

  // The result must be row-major with unit column stride; otherwise compute into a buffer.
  const bool direct = (out.stride(2) == 1 || N == 1) && out.stride(1) >= N &&
                      (B == 1 || out.stride(0) >= M * out.stride(1));
  Tensor c = direct ? out : make_empty(out.sizes(), dt, out.device());
  if (!direct && beta != 0) cast_copy(c, out);
  Operand A = prepare(a), Bm = prepare(b);
  const int64_t ldc = direct ? std::max<int64_t>(out.stride(1), N) : N;
  const int64_t stride_c = direct ? (B == 1 ? M * ldc : out.stride(0)) : M * N;

  const float alpha_f = static_cast<float>(alpha), beta_f = static_cast<float>(beta);
  const void* alpha_p = dt == kDouble ? static_cast<const void*>(&alpha) : &alpha_f;
  const void* beta_p = dt == kDouble ? static_cast<const void*>(&beta) : &beta_f;
  // Column-major: C^T[N, M] = B^T[N, K] * A^T[K, M].
  audit::record_kernel_launch();
  if (B == 1) {
    check_cublas(
        cublasGemmEx(h, Bm.op, A.op, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K),
                     alpha_p, Bm.t.data_ptr(), type, static_cast<int>(Bm.ld), A.t.data_ptr(), type,
                     static_cast<int>(A.ld), beta_p, c.data_ptr(), type, static_cast<int>(ldc),
                     compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
  } else {
    check_cublas(
        cublasGemmStridedBatchedEx(
            h, Bm.op, A.op, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), alpha_p,
            Bm.t.data_ptr(), type, static_cast<int>(Bm.ld), Bm.batch_stride, A.t.data_ptr(), type,
            static_cast<int>(A.ld), A.batch_stride, beta_p, c.data_ptr(), type,
            static_cast<int>(ldc), stride_c, static_cast<int>(B), compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx");
  }
  if (!direct) cast_copy(out, c);
}

}  // namespace ember::cuda
