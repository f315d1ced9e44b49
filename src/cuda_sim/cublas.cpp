// cuBLAS for the simulator: GemmEx and GemmStridedBatchedEx with cuBLAS's column-major
// semantics and argument checks, so Ember's row-major mapping (src/cuda/blas.cpp) is exercised
// as on a GPU. float and double go to OpenBLAS directly; half and bfloat16 are widened to float,
// multiplied with float accumulation and rounded once, as CUBLAS_COMPUTE_32F does. TF32 is
// computed in full float32 precision (a GPU rounds the inputs to 10-bit mantissas). A workspace
// set with cublasSetWorkspace is checked (live memory of the stream's device, the whole range)
// and written by the GEMM on the stream, as cuBLAS's split-K kernels write theirs, so a
// workspace freed or shared too early shows up as a fault or corrupted data.
#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "cublas_v2.h"
#include "ember/half.h"
#include "sim_state.h"

struct cublasContext {
  int device = 0;
  cudaStream_t stream = nullptr;
  bool user_workspace = false;  // false: cuBLAS's default pool
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

namespace {

using cuda_sim::Task;

thread_local cuda_sim::CublasGemmRecord t_last_gemm;

// What the GEMM's kernels write to a user workspace: its first 64 KiB and last 4 KiB.
constexpr size_t kWorkspaceHead = 64 << 10, kWorkspaceTail = 4 << 10;
constexpr unsigned char kWorkspaceScribble = 0x5a;

size_t elem_size(cudaDataType_t t) {
  switch (t) {
    case CUDA_R_32F:
      return 4;
    case CUDA_R_64F:
      return 8;
    case CUDA_R_16F:
    case CUDA_R_16BF:
      return 2;
  }
  return 0;
}

float load_float(const void* base, cudaDataType_t t, size_t i) {
  switch (t) {
    case CUDA_R_32F:
      return static_cast<const float*>(base)[i];
    case CUDA_R_16F:
      return static_cast<float>(static_cast<const ember::Half*>(base)[i]);
    case CUDA_R_16BF:
      return static_cast<float>(static_cast<const ember::BFloat16*>(base)[i]);
    default:
      return 0;
  }
}

void store_float(void* base, cudaDataType_t t, size_t i, float v) {
  switch (t) {
    case CUDA_R_32F:
      static_cast<float*>(base)[i] = v;
      break;
    case CUDA_R_16F:
      static_cast<ember::Half*>(base)[i] = ember::Half(v);
      break;
    case CUDA_R_16BF:
      static_cast<ember::BFloat16*>(base)[i] = ember::BFloat16(v);
      break;
    default:
      break;
  }
}

// A column-major rows x cols matrix with leading dimension ld, widened to a dense float array.
std::vector<float> widen(const void* p, cudaDataType_t t, int rows, int cols, int ld) {
  std::vector<float> out(static_cast<size_t>(rows) * cols);
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r)
      out[static_cast<size_t>(c) * rows + r] = load_float(p, t, static_cast<size_t>(c) * ld + r);
  return out;
}

CBLAS_TRANSPOSE cblas_op(cublasOperation_t op) {
  return op == CUBLAS_OP_N ? CblasNoTrans : CblasTrans;
}

struct Gemm {
  cublasOperation_t ta, tb;
  int m, n, k;
  double alpha, beta;
  const void *A, *B;
  void* C;
  cudaDataType_t type;
  int lda, ldb, ldc;
  long long sa, sb, sc;
  int batch;
  void* workspace;
  size_t workspace_bytes;

  void run() const {
    if (workspace && workspace_bytes) {
      auto* w = static_cast<unsigned char*>(workspace);
      std::memset(w, kWorkspaceScribble, std::min(workspace_bytes, kWorkspaceHead));
      const size_t tail = std::min(workspace_bytes, kWorkspaceTail);
      std::memset(w + workspace_bytes - tail, kWorkspaceScribble, tail);
    }
    const size_t es = elem_size(type);
    for (int i = 0; i < batch; ++i) {
      const char* a = static_cast<const char*>(A) + static_cast<size_t>(sa * i) * es;
      const char* b = static_cast<const char*>(B) + static_cast<size_t>(sb * i) * es;
      char* c = static_cast<char*>(C) + static_cast<size_t>(sc * i) * es;
      one(a, b, c);
    }
  }

  void one(const void* a, const void* b, void* c) const {
    if (type == CUDA_R_64F) {
      cblas_dgemm(CblasColMajor, cblas_op(ta), cblas_op(tb), m, n, k, alpha,
                  static_cast<const double*>(a), lda, static_cast<const double*>(b), ldb, beta,
                  static_cast<double*>(c), ldc);
      return;
    }
    if (type == CUDA_R_32F) {
      cblas_sgemm(CblasColMajor, cblas_op(ta), cblas_op(tb), m, n, k, static_cast<float>(alpha),
                  static_cast<const float*>(a), lda, static_cast<const float*>(b), ldb,
                  static_cast<float>(beta), static_cast<float*>(c), ldc);
      return;
    }
    // 16-bit: widen, multiply in float, round once.
    const int ar = ta == CUBLAS_OP_N ? m : k, ac = ta == CUBLAS_OP_N ? k : m;
    const int br = tb == CUBLAS_OP_N ? k : n, bc = tb == CUBLAS_OP_N ? n : k;
    std::vector<float> fa = widen(a, type, ar, ac, lda), fb = widen(b, type, br, bc, ldb);
    std::vector<float> fc(static_cast<size_t>(m) * n, 0.0f);
    if (beta != 0) fc = widen(c, type, m, n, ldc);
    cblas_sgemm(CblasColMajor, cblas_op(ta), cblas_op(tb), m, n, k, static_cast<float>(alpha),
                fa.data(), std::max(ar, 1), fb.data(), std::max(br, 1), static_cast<float>(beta),
                fc.data(), std::max(m, 1));
    for (int col = 0; col < n; ++col)
      for (int r = 0; r < m; ++r)
        store_float(c, type, static_cast<size_t>(col) * ldc + r,
                    fc[static_cast<size_t>(col) * m + r]);
  }
};

cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                    int k, const void* alpha, const void* A, cudaDataType_t at, int lda,
                    long long sa, const void* B, cudaDataType_t bt, int ldb, long long sb,
                    const void* beta, void* C, cudaDataType_t ct, int ldc, long long sc, int batch,
                    cublasComputeType_t compute) {
  using namespace cuda_sim;
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || k < 0 || batch < 0 || !alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (ta == CUBLAS_OP_C) ta = CUBLAS_OP_T;  // real types: conjugate transpose is transpose
  if (tb == CUBLAS_OP_C) tb = CUBLAS_OP_T;
  if (lda < std::max(1, ta == CUBLAS_OP_N ? m : k) ||
      ldb < std::max(1, tb == CUBLAS_OP_N ? k : n) || ldc < std::max(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (at != bt || at != ct || elem_size(at) == 0) return CUBLAS_STATUS_NOT_SUPPORTED;
  const bool wide = at == CUDA_R_64F;
  if (wide != (compute == CUBLAS_COMPUTE_64F)) return CUBLAS_STATUS_NOT_SUPPORTED;
  if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
  // Scalars are read now (host pointer mode), in the compute type.
  Gemm g{ta,
         tb,
         m,
         n,
         k,
         wide ? *static_cast<const double*>(alpha) : *static_cast<const float*>(alpha),
         wide ? *static_cast<const double*>(beta) : *static_cast<const float*>(beta),
         A,
         B,
         C,
         at,
         lda,
         ldb,
         ldc,
         sa,
         sb,
         sc,
         batch,
         h->user_workspace ? h->workspace : nullptr,
         h->user_workspace ? h->workspace_bytes : 0};
  Stream* s = nullptr;
  {
    const int saved = current_device_index();
    cudaSetDevice(h->device);
    s = resolve_stream(h->stream);
    cudaSetDevice(saved);
  }
  if (!s) return CUBLAS_STATUS_EXECUTION_FAILED;
  if (sticky_error(s->device)) return CUBLAS_STATUS_EXECUTION_FAILED;
  for (const void* p : {A, B, static_cast<const void*>(C)}) {
    const PointerInfo info = classify(p);
    if (k == 0 && p != C) continue;
    if (info.kind != MemoryKind::DeviceLive || info.device != s->device) {
      set_sticky(
          s->device, cudaErrorIllegalAddress,
          "cublasGemmEx on cuda:" + std::to_string(s->device) + " was given " + describe(info, p));
      return CUBLAS_STATUS_EXECUTION_FAILED;
    }
  }
  if (g.workspace_bytes) {
    // The whole range must be live memory of the stream's device (a block still handed out).
    const char* first = static_cast<const char*>(g.workspace);
    for (const void* p : {static_cast<const void*>(first),
                          static_cast<const void*>(first + g.workspace_bytes - 1)}) {
      const PointerInfo info = classify(p);
      if (info.kind != MemoryKind::DeviceLive || info.device != s->device ||
          (p == first &&
           first + g.workspace_bytes > reinterpret_cast<const char*>(info.base) + info.size)) {
        set_sticky(s->device, cudaErrorIllegalAddress,
                   "cublasGemmEx on cuda:" + std::to_string(s->device) +
                       " was given a workspace of " + std::to_string(g.workspace_bytes) +
                       " bytes whose " + (p == first ? "start" : "end") + " is " +
                       describe(info, p));
        return CUBLAS_STATUS_EXECUTION_FAILED;
      }
    }
  }
  if (k == 0) {  // C = beta * C: run through the same path with an empty product
    g.k = 0;
  }
  s->enqueue(Task{[g] { g.run(); }, {s->device}, "cublasGemmEx"});
  t_last_gemm = {s->device, h->stream, h->user_workspace, h->workspace, h->workspace_bytes};
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return CUBLAS_STATUS_NOT_INITIALIZED;
  *handle = new cublasContext{dev, nullptr};
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  // cuBLAS: "unconditionally resets the cuBLAS library workspace back to the default pool".
  handle->user_workspace = false;
  handle->workspace = nullptr;
  handle->workspace_bytes = 0;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace, size_t bytes) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (reinterpret_cast<uintptr_t>(workspace) % 256 != 0) return CUBLAS_STATUS_INVALID_VALUE;
  handle->user_workspace = true;
  handle->workspace = workspace;
  handle->workspace_bytes = bytes;
  return CUBLAS_STATUS_SUCCESS;
}

cuda_sim::CublasGemmRecord cuda_sim::last_cublas_gemm() {
  return t_last_gemm;
}

const char* cublasGetStatusName(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS:
      return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

const char* cublasGetStatusString(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS:
      return "success";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "the functionality requested is not supported";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "the GPU program failed to execute";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "resource allocation failed";
    default:
      return "cuBLAS error";
  }
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                            int n, int k, const void* alpha, const void* A, cudaDataType_t at,
                            int lda, const void* B, cudaDataType_t bt, int ldb, const void* beta,
                            void* C, cudaDataType_t ct, int ldc, cublasComputeType_t compute,
                            cublasGemmAlgo_t) {
  return gemm(h, ta, tb, m, n, k, alpha, A, at, lda, 0, B, bt, ldb, 0, beta, C, ct, ldc, 0, 1,
              compute);
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k,
                                          const void* alpha, const void* A, cudaDataType_t at,
                                          int lda, long long sa, const void* B, cudaDataType_t bt,
                                          int ldb, long long sb, const void* beta, void* C,
                                          cudaDataType_t ct, int ldc, long long sc, int batch,
                                          cublasComputeType_t compute, cublasGemmAlgo_t) {
  return gemm(h, ta, tb, m, n, k, alpha, A, at, lda, sa, B, bt, ldb, sb, beta, C, ct, ldc, sc,
              batch, compute);
}
