#pragma once
// The subset of cuBLAS that Ember calls, for the simulator (src/cuda_sim/cublas.cpp): cuBLAS's
// column-major GEMM semantics and argument checks, computed by OpenBLAS on the stream's worker.
#include "cuda_runtime_api.h"

typedef struct cublasContext* cublasHandle_t;

enum cublasStatus_t {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
};

enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 };

enum cudaDataType_t { CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_16BF = 14 };
typedef cudaDataType_t cudaDataType;

enum cublasComputeType_t {
  CUBLAS_COMPUTE_16F = 64,
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_FAST_16F = 74,
  CUBLAS_COMPUTE_32F_FAST_16BF = 75,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
  CUBLAS_COMPUTE_64F = 70,
};

enum cublasGemmAlgo_t { CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99 };

EMBER_SIM_API cublasStatus_t cublasCreate(cublasHandle_t* handle);
EMBER_SIM_API cublasStatus_t cublasDestroy(cublasHandle_t handle);
// Also puts the handle back on cuBLAS's default workspace pool, as cuBLAS does.
EMBER_SIM_API cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
// A user-owned device workspace for the following calls: CUBLAS_STATUS_INVALID_VALUE unless
// `workspace` is 256-byte aligned. Any size is accepted, 0 included (no workspace at all: cuBLAS
// then picks kernels that need none); the GEMMs check that the range is live memory of their
// stream's device and write to it, as cuBLAS's kernels do.
EMBER_SIM_API cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace,
                                                   size_t workspaceSizeInBytes);
#define cublasSetWorkspace cublasSetWorkspace_v2
EMBER_SIM_API const char* cublasGetStatusName(cublasStatus_t status);
EMBER_SIM_API const char* cublasGetStatusString(cublasStatus_t status);

EMBER_SIM_API cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                          cublasOperation_t transb, int m, int n, int k,
                                          const void* alpha, const void* A, cudaDataType_t Atype,
                                          int lda, const void* B, cudaDataType_t Btype, int ldb,
                                          const void* beta, void* C, cudaDataType_t Ctype, int ldc,
                                          cublasComputeType_t compute, cublasGemmAlgo_t algo);
EMBER_SIM_API cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void* alpha, const void* A, cudaDataType_t Atype, int lda, long long strideA,
    const void* B, cudaDataType_t Btype, int ldb, long long strideB, const void* beta, void* C,
    cudaDataType_t Ctype, int ldc, long long strideC, int batchCount, cublasComputeType_t compute,
    cublasGemmAlgo_t algo);
