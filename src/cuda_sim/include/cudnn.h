#pragma once
// The simulator's cuDNN: the subset of cuDNN 9's legacy convolution API that Ember calls
// (src/cuda_cudnn), with cuDNN's names, enum values and status codes. src/cuda_sim/cudnn.cpp
// computes each call on the stream's worker with a direct loop, after cuDNN's argument checks.
#include <cstddef>

#include "cuda_runtime_api.h"

#define CUDNN_MAJOR 9
#define CUDNN_MINOR 0
#define CUDNN_PATCHLEVEL 0
#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)
#define CUDNN_DIM_MAX 8

extern "C" {

typedef enum {
  CUDNN_STATUS_SUCCESS = 0,
  CUDNN_STATUS_NOT_INITIALIZED = 1001,
  CUDNN_STATUS_BAD_PARAM = 2000,
  CUDNN_STATUS_NOT_SUPPORTED = 3000,
  CUDNN_STATUS_INTERNAL_ERROR = 4000,
  CUDNN_STATUS_EXECUTION_FAILED = 5000,
} cudnnStatus_t;

typedef enum {
  CUDNN_DATA_FLOAT = 0,
  CUDNN_DATA_DOUBLE = 1,
  CUDNN_DATA_HALF = 2,
  CUDNN_DATA_BFLOAT16 = 9,
} cudnnDataType_t;

typedef enum { CUDNN_TENSOR_NCHW = 0, CUDNN_TENSOR_NHWC = 1 } cudnnTensorFormat_t;
typedef enum { CUDNN_CONVOLUTION = 0, CUDNN_CROSS_CORRELATION = 1 } cudnnConvolutionMode_t;
typedef enum {
  CUDNN_DEFAULT_MATH = 0,
  CUDNN_TENSOR_OP_MATH = 1,
  CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
  CUDNN_FMA_MATH = 3,
} cudnnMathType_t;
typedef enum { CUDNN_NON_DETERMINISTIC = 0, CUDNN_DETERMINISTIC = 1 } cudnnDeterminism_t;

typedef enum {
  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM = 0,
  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1,
  CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8
} cudnnConvolutionFwdAlgo_t;
typedef enum {
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 = 0,  // non-deterministic
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_1 = 1,
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT = 6
} cudnnConvolutionBwdDataAlgo_t;
typedef enum {
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 = 0,  // non-deterministic
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 = 1,
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT = 7
} cudnnConvolutionBwdFilterAlgo_t;

#define CUDNN_PERF_FIELDS(Algo)   \
  Algo algo;                      \
  cudnnStatus_t status;           \
  float time;                     \
  size_t memory;                  \
  cudnnDeterminism_t determinism; \
  cudnnMathType_t mathType;       \
  int reserved[3];
typedef struct {
  CUDNN_PERF_FIELDS(cudnnConvolutionFwdAlgo_t)
} cudnnConvolutionFwdAlgoPerf_t;
typedef struct {
  CUDNN_PERF_FIELDS(cudnnConvolutionBwdDataAlgo_t)
} cudnnConvolutionBwdDataAlgoPerf_t;
typedef struct {
  CUDNN_PERF_FIELDS(cudnnConvolutionBwdFilterAlgo_t)
} cudnnConvolutionBwdFilterAlgoPerf_t;
#undef CUDNN_PERF_FIELDS

typedef struct cudnnContext* cudnnHandle_t;
typedef struct cudnnTensorStruct* cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct* cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct* cudnnConvolutionDescriptor_t;

EMBER_SIM_API size_t cudnnGetVersion(void);
EMBER_SIM_API const char* cudnnGetErrorString(cudnnStatus_t status);
EMBER_SIM_API cudnnStatus_t cudnnCreate(cudnnHandle_t* handle);
EMBER_SIM_API cudnnStatus_t cudnnDestroy(cudnnHandle_t handle);
EMBER_SIM_API cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream);

EMBER_SIM_API cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* desc);
EMBER_SIM_API cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t desc);
EMBER_SIM_API cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t desc,
                                                       cudnnDataType_t type, int nb_dims,
                                                       const int dims[], const int strides[]);
EMBER_SIM_API cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* desc);
EMBER_SIM_API cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t desc);
EMBER_SIM_API cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t desc,
                                                       cudnnDataType_t type,
                                                       cudnnTensorFormat_t format, int nb_dims,
                                                       const int dims[]);
EMBER_SIM_API cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* desc);
EMBER_SIM_API cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t desc);
EMBER_SIM_API cudnnStatus_t cudnnSetConvolutionNdDescriptor(
    cudnnConvolutionDescriptor_t desc, int array_length, const int pads[], const int strides[],
    const int dilations[], cudnnConvolutionMode_t mode, cudnnDataType_t compute_type);
EMBER_SIM_API cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t desc,
                                                          int groups);
EMBER_SIM_API cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t desc,
                                                        cudnnMathType_t math);

EMBER_SIM_API cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y, int requested, int* returned,
    cudnnConvolutionFwdAlgoPerf_t* results);
EMBER_SIM_API cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy,
    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t dx, int requested, int* returned,
    cudnnConvolutionBwdDataAlgoPerf_t* results);
EMBER_SIM_API cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t dy,
    cudnnConvolutionDescriptor_t conv, cudnnFilterDescriptor_t dw, int requested, int* returned,
    cudnnConvolutionBwdFilterAlgoPerf_t* results);

EMBER_SIM_API cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x_desc, const void* x,
    cudnnFilterDescriptor_t w_desc, const void* w, cudnnConvolutionDescriptor_t conv,
    cudnnTensorDescriptor_t y_desc, void* y, int requested, int* returned,
    cudnnConvolutionFwdAlgoPerf_t* results, void* workspace, size_t workspace_bytes);
EMBER_SIM_API cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    cudnnHandle_t handle, cudnnFilterDescriptor_t w_desc, const void* w,
    cudnnTensorDescriptor_t dy_desc, const void* dy, cudnnConvolutionDescriptor_t conv,
    cudnnTensorDescriptor_t dx_desc, void* dx, int requested, int* returned,
    cudnnConvolutionBwdDataAlgoPerf_t* results, void* workspace, size_t workspace_bytes);
EMBER_SIM_API cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x_desc, const void* x,
    cudnnTensorDescriptor_t dy_desc, const void* dy, cudnnConvolutionDescriptor_t conv,
    cudnnFilterDescriptor_t dw_desc, void* dw, int requested, int* returned,
    cudnnConvolutionBwdFilterAlgoPerf_t* results, void* workspace, size_t workspace_bytes);

EMBER_SIM_API cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y, cudnnConvolutionFwdAlgo_t algo,
    size_t* bytes);
EMBER_SIM_API cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t handle, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy,
    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t dx,
    cudnnConvolutionBwdDataAlgo_t algo, size_t* bytes);
EMBER_SIM_API cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t dy,
    cudnnConvolutionDescriptor_t conv, cudnnFilterDescriptor_t dw,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t* bytes);

EMBER_SIM_API cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void* alpha,
                                                    cudnnTensorDescriptor_t x_desc, const void* x,
                                                    cudnnFilterDescriptor_t w_desc, const void* w,
                                                    cudnnConvolutionDescriptor_t conv,
                                                    cudnnConvolutionFwdAlgo_t algo, void* workspace,
                                                    size_t workspace_bytes, const void* beta,
                                                    cudnnTensorDescriptor_t y_desc, void* y);
EMBER_SIM_API cudnnStatus_t cudnnConvolutionBackwardData(
    cudnnHandle_t handle, const void* alpha, cudnnFilterDescriptor_t w_desc, const void* w,
    cudnnTensorDescriptor_t dy_desc, const void* dy, cudnnConvolutionDescriptor_t conv,
    cudnnConvolutionBwdDataAlgo_t algo, void* workspace, size_t workspace_bytes, const void* beta,
    cudnnTensorDescriptor_t dx_desc, void* dx);
EMBER_SIM_API cudnnStatus_t cudnnConvolutionBackwardFilter(
    cudnnHandle_t handle, const void* alpha, cudnnTensorDescriptor_t x_desc, const void* x,
    cudnnTensorDescriptor_t dy_desc, const void* dy, cudnnConvolutionDescriptor_t conv,
    cudnnConvolutionBwdFilterAlgo_t algo, void* workspace, size_t workspace_bytes, const void* beta,
    cudnnFilterDescriptor_t dw_desc, void* dw);
EMBER_SIM_API cudnnStatus_t cudnnConvolutionBackwardBias(cudnnHandle_t handle, const void* alpha,
                                                         cudnnTensorDescriptor_t dy_desc,
                                                         const void* dy, const void* beta,
                                                         cudnnTensorDescriptor_t db_desc, void* db);
EMBER_SIM_API cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void* alpha,
                                           cudnnTensorDescriptor_t a_desc, const void* a,
                                           const void* beta, cudnnTensorDescriptor_t c_desc,
                                           void* c);

}  // extern "C"
