// The CUDA backend's direct convolutions through cuDNN (built where cuDNN is found, and on the
// simulator, whose shim has the same calls): forward, backward-data, backward-filter and the
// bias gradient for 1/2/3-d convolutions (1-d comes as 2-d with H = 1), grouped and dilated,
// float32 (TF32 as backends::cudnn::allow_tf32), float64, float16 and bfloat16 (float32 math).
// cuDNN's legacy calls rather than its graph API: they are the ones PyTorch 1.13 made, cover
// every case here with one call each, and keep the simulator's shim small (docs/cuda.md).
//
// Algorithms as PyTorch picks them: cuDNN's heuristics by default, a measured search with
// backends::cudnn::benchmark, both cached per case; with backends::cudnn::deterministic (or
// use_deterministic_algorithms) only deterministic ones. Workspaces come from the caching
// allocator on the call's stream, so they count in memory_stats(), an out-of-memory takes the
// free-and-retry path, and stream order keeps them alive until the call has run.
#include <cudnn.h>

#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "core/device_audit.h"
#include "core/tensor_factory.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_internal.h"
#include "ember/backends.h"

namespace ember {
namespace backends::cudnn {
// As PyTorch's torch.backends.cudnn.is_available(): the build has cuDNN, with or without a GPU.
bool is_available() {
  return true;
}
int64_t version() {
  return static_cast<int64_t>(cudnnGetVersion());
}
}  // namespace backends::cudnn

namespace cuda {
namespace {

void check_cudnn(cudnnStatus_t s, const char* what) {
  if (s == CUDNN_STATUS_SUCCESS) return;
  throw Error(::ember::detail::str_cat("cuDNN error ", cudnnGetErrorString(s), " in ", what));
}

cudnnHandle_t handle_for(int device) {
  thread_local std::unordered_map<int, cudnnHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cudnnHandle_t h = nullptr;
  check_cudnn(cudnnCreate(&h), "cudnnCreate");
  handles.emplace(device, h);
  return h;
}

cudnnDataType_t data_type(ScalarType t) {
  switch (t) {
    case kFloat:
      return CUDNN_DATA_FLOAT;
    case kDouble:
      return CUDNN_DATA_DOUBLE;
    case kHalf:
      return CUDNN_DATA_HALF;
    default:
      return CUDNN_DATA_BFLOAT16;
  }
}

// A dense copy of t when it is not contiguous (descriptors here describe dense tensors only: an
// expanded gradient has zero strides, which cuDNN refuses).
Tensor dense(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor c = make_empty(t.sizes(), t.dtype(), t.device());
  cast_copy(c, t);
  return c;
}

// Descriptors, destroyed with the call.
struct TensorDesc {
  cudnnTensorDescriptor_t d = nullptr;
  // A dense tensor of these sizes.
  TensorDesc(IntArrayRef sizes, ScalarType dtype) {
    check_cudnn(cudnnCreateTensorDescriptor(&d), "cudnnCreateTensorDescriptor");
    const int nb = static_cast<int>(sizes.size());
    int dims[CUDNN_DIM_MAX], strides[CUDNN_DIM_MAX];
    int64_t stride = 1;
    for (int i = nb - 1; i >= 0; --i) {
      dims[i] = static_cast<int>(sizes[i]);
      strides[i] = static_cast<int>(stride);
      stride *= sizes[i];
    }
    check_cudnn(cudnnSetTensorNdDescriptor(d, data_type(dtype), nb, dims, strides),
                "cudnnSetTensorNdDescriptor");
  }
  ~TensorDesc() { cudnnDestroyTensorDescriptor(d); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
};

struct FilterDesc {
  cudnnFilterDescriptor_t d = nullptr;
  FilterDesc(IntArrayRef sizes, ScalarType dtype) {
    check_cudnn(cudnnCreateFilterDescriptor(&d), "cudnnCreateFilterDescriptor");
    int dims[CUDNN_DIM_MAX];
    for (size_t i = 0; i < sizes.size(); ++i) dims[i] = static_cast<int>(sizes[i]);
    check_cudnn(cudnnSetFilterNdDescriptor(d, data_type(dtype), CUDNN_TENSOR_NCHW,
                                           static_cast<int>(sizes.size()), dims),
                "cudnnSetFilterNdDescriptor");
  }
  ~FilterDesc() { cudnnDestroyFilterDescriptor(d); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
};

cudnnMathType_t math_type(ScalarType dtype) {
  if (dtype == kHalf || dtype == kBFloat16) return CUDNN_TENSOR_OP_MATH;
  if (dtype == kFloat && !backends::cudnn::allow_tf32()) return CUDNN_FMA_MATH;
  return CUDNN_DEFAULT_MATH;  // float32 may use TF32 tensor cores, as PyTorch allows by default
}

struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  ConvDesc(const Window& g, int64_t groups, int spatial, ScalarType dtype) {
    check_cudnn(cudnnCreateConvolutionDescriptor(&d), "cudnnCreateConvolutionDescriptor");
    const int p3[] = {int(g.pd), int(g.ph), int(g.pw)}, s3[] = {int(g.sd), int(g.sh), int(g.sw)},
              d3[] = {int(g.dd), int(g.dh), int(g.dw)};
    const int skip = 3 - spatial;  // 2-d convolutions leave out the depth
    check_cudnn(cudnnSetConvolutionNdDescriptor(
                    d, spatial, p3 + skip, s3 + skip, d3 + skip, CUDNN_CROSS_CORRELATION,
                    dtype == kDouble ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT),
                "cudnnSetConvolutionNdDescriptor");
    check_cudnn(cudnnSetConvolutionGroupCount(d, static_cast<int>(groups)),
                "cudnnSetConvolutionGroupCount");
    check_cudnn(cudnnSetConvolutionMathType(d, math_type(dtype)), "cudnnSetConvolutionMathType");
  }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
};

enum class Direction { Forward, BackwardData, BackwardFilter };

struct Choice {
  int algo = 0;
  size_t workspace = 0;
};

bool want_deterministic() {
  return backends::cudnn::deterministic() || are_deterministic_algorithms_enabled();
}

// The algorithm chosen for a case: (direction, device, dtype, shapes, window, groups, math,
// deterministic, benchmark) -> Choice, shared by all threads as PyTorch's cache is.
std::mutex g_choices_mutex;
std::map<std::string, Choice>& choices() {
  static auto* m = new std::map<std::string, Choice>;
  return *m;
}

std::string case_key(Direction dir, const Tensor& x, IntArrayRef w_sizes, const Window& g,
                     int64_t groups, bool benchmark) {
  std::ostringstream k;
  k << int(dir) << '|' << x.device().index() << '|' << int(x.scalar_type()) << '|' << x.sizes()
    << '|' << w_sizes << '|' << g.pd << ',' << g.ph << ',' << g.pw << ',' << g.sd << ',' << g.sh
    << ',' << g.sw << ',' << g.dd << ',' << g.dh << ',' << g.dw << '|' << groups << '|'
    << int(math_type(x.scalar_type())) << '|' << want_deterministic() << benchmark;
  return k.str();
}

// The first usable algorithm of a list (heuristics' order, or a search's fastest first).
template <typename Perf>
Choice first_usable(const Perf* perfs, int n, const char* what) {
  const bool deterministic = want_deterministic();
  for (int i = 0; i < n; ++i) {
    if (perfs[i].status != CUDNN_STATUS_SUCCESS) continue;
    if (deterministic && perfs[i].determinism != CUDNN_DETERMINISTIC) continue;
    return {static_cast<int>(perfs[i].algo), perfs[i].memory};
  }
  throw Error(::ember::detail::str_cat(
      what, ": cuDNN offers no ", deterministic ? "deterministic " : "",
      "algorithm for this convolution; set backends::cudnn::set_enabled(false) to use Ember's "
      "im2col kernels"));
}

// The largest workspace among `perfs` that the allocator can give now (a search then measures
// every algorithm that fits, as PyTorch's does); 0 when even the smallest would not fit.
template <typename Perf>
Tensor search_workspace(const Perf* perfs, int n, Device device) {
  size_t most = 0;
  for (int i = 0; i < n; ++i)
    if (perfs[i].status == CUDNN_STATUS_SUCCESS) most = std::max(most, perfs[i].memory);
  try {
    return make_empty({static_cast<int64_t>(most)}, kByte, device);
  } catch (const OutOfMemoryError&) {
    return make_empty({0}, kByte, device);
  }
}

// Everything one call needs: the handle bound to the current stream and the three descriptors.
struct Call {
  int device;
  cudnnHandle_t h;
  TensorDesc x, y;
  FilterDesc w;
  ConvDesc conv;
  Call(const Tensor& in_shape, const Tensor& out_shape, IntArrayRef w_sizes, const Window& g,
       int64_t groups)
      : device(in_shape.device().index()),
        h(handle_for(device)),
        x(in_shape.sizes(), in_shape.dtype()),
        y(out_shape.sizes(), in_shape.dtype()),
        w(w_sizes, in_shape.dtype()),
        conv(g, groups, static_cast<int>(in_shape.dim()) - 2, in_shape.dtype()) {
    check_cudnn(cudnnSetStream(h, detail::current_cuda_stream(device)), "cudnnSetStream");
  }
};

// 1 and 0 in the scaling type cuDNN reads for dtype (double for float64, else float).
struct Scalars {
  float f1 = 1, f0 = 0;
  double d1 = 1, d0 = 0;
  bool wide;
  explicit Scalars(ScalarType t) : wide(t == kDouble) {}
  const void* one() const { return wide ? static_cast<const void*>(&d1) : &f1; }
  const void* zero() const { return wide ? static_cast<const void*>(&d0) : &f0; }
};

// Looks up or chooses the algorithm for `dir`: `heuristics(perfs, &n)` and `search(perfs, &n,
// workspace)` fill cuDNN's perf lists.
template <typename Perf, typename Heuristics, typename Search>
Choice choose(const std::string& key, Device device, const char* what, Heuristics heuristics,
              Search search) {
  {
    std::lock_guard<std::mutex> lock(g_choices_mutex);
    auto it = choices().find(key);
    if (it != choices().end()) return it->second;
  }
  constexpr int kMax = 8;
  Perf perfs[kMax];
  int n = 0;
  heuristics(perfs, kMax, &n);
  Choice c;
  if (backends::cudnn::benchmark()) {
    const Tensor ws = search_workspace(perfs, n, device);
    audit::record_kernel_launch();
    search(perfs, kMax, &n, ws);
    c = first_usable(perfs, n, what);
  } else {
    c = first_usable(perfs, n, what);
  }
  std::lock_guard<std::mutex> lock(g_choices_mutex);
  choices().emplace(key, c);
  return c;
}

Tensor workspace_for(const Choice& c, Device device) {
  return make_empty({static_cast<int64_t>(c.workspace)}, kByte, device);
}

// Writes `result` into `dst` when a dense stand-in was used.
void write_back(const Tensor& dst, const Tensor& result) {
  if (!dst.is_same(result)) cast_copy(dst, result);
}

Tensor dense_output(const Tensor& t) {
  return t.is_contiguous() ? t : make_empty(t.sizes(), t.dtype(), t.device());
}

// The bias's descriptor: [1, C, 1...] of `rank` dims.
DimVector bias_shape(int64_t channels, int64_t rank) {
  DimVector s(static_cast<size_t>(rank), 1);
  s[1] = channels;
  return s;
}

}  // namespace

bool CudaBackend::has_convolution(const Tensor& in, const Window& g, int64_t groups) {
  if (!backends::cudnn::enabled() || !in.is_cuda()) return false;
  const ScalarType t = in.dtype();
  if (t != kFloat && t != kDouble && t != kHalf && t != kBFloat16) return false;
  if (in.dim() != 4 && in.dim() != 5) return false;
  // cuDNN's windows are symmetric: the output size must follow from the padding on both sides.
  auto fits = [](int64_t size, int64_t k, int64_t s, int64_t p, int64_t d, int64_t out) {
    return (size + 2 * p - d * (k - 1) - 1) / s + 1 == out;
  };
  if (!fits(g.height, g.kh, g.sh, g.ph, g.dh, g.out_h) ||
      !fits(g.width, g.kw, g.sw, g.pw, g.dw, g.out_w) ||
      !fits(g.depth, g.kd, g.sd, g.pd, g.dd, g.out_d))
    return false;
  // Descriptors take int sizes.
  constexpr int64_t kIntMax = 0x7fffffff;
  return in.numel() <= kIntMax && groups <= kIntMax;
}

void CudaBackend::convolution(const Tensor& out, const Tensor& in, const Tensor& weight,
                              const Tensor& bias, const Window& g, int64_t groups) {
  const int device = out.device().index();
  DeviceGuard guard(device);
  const Tensor x = dense(in), w = dense(weight);
  const Tensor y = dense_output(out);
  Call call(x, y, w.sizes(), g, groups);
  const Scalars s(x.dtype());
  const Choice c = choose<cudnnConvolutionFwdAlgoPerf_t>(
      case_key(Direction::Forward, x, w.sizes(), g, groups, backends::cudnn::benchmark()),
      x.device(), "conv forward",
      [&](cudnnConvolutionFwdAlgoPerf_t* p, int max, int* n) {
        check_cudnn(cudnnGetConvolutionForwardAlgorithm_v7(call.h, call.x.d, call.w.d, call.conv.d,
                                                           call.y.d, max, n, p),
                    "cudnnGetConvolutionForwardAlgorithm_v7");
      },
      [&](cudnnConvolutionFwdAlgoPerf_t* p, int max, int* n, const Tensor& ws) {
        check_cudnn(cudnnFindConvolutionForwardAlgorithmEx(
                        call.h, call.x.d, x.data_ptr(), call.w.d, w.data_ptr(), call.conv.d,
                        call.y.d, y.data_ptr(), max, n, p, ws.data_ptr(), ws.numel()),
                    "cudnnFindConvolutionForwardAlgorithmEx");
      });
  const Tensor ws = workspace_for(c, x.device());
  audit::record_kernel_launch();
  check_cudnn(
      cudnnConvolutionForward(call.h, s.one(), call.x.d, x.data_ptr(), call.w.d, w.data_ptr(),
                              call.conv.d, static_cast<cudnnConvolutionFwdAlgo_t>(c.algo),
                              ws.data_ptr(), c.workspace, s.zero(), call.y.d, y.data_ptr()),
      "cudnnConvolutionForward");
  if (bias.defined()) {
    const Tensor b = dense(bias);
    TensorDesc bd(bias_shape(b.numel(), y.dim()), b.dtype());
    audit::record_kernel_launch();
    check_cudnn(
        cudnnAddTensor(call.h, s.one(), bd.d, b.data_ptr(), s.one(), call.y.d, y.data_ptr()),
        "cudnnAddTensor");
  }
  write_back(out, y);
}

void CudaBackend::convolution_backward(const Tensor& grad_in, const Tensor& grad_weight,
                                       const Tensor& grad_bias, const Tensor& grad_out,
                                       const Tensor& in, const Tensor& weight, const Window& g,
                                       int64_t groups) {
  const int device = grad_out.device().index();
  DeviceGuard guard(device);
  const Tensor dy = dense(grad_out), w = dense(weight);
  const Scalars s(dy.dtype());
  const bool bench = backends::cudnn::benchmark();
  if (grad_in.defined()) {
    // Only in's shape is read here (conv_transpose passes its output): grad_in has it.
    const Tensor dx = dense_output(grad_in);
    Call call(dx, dy, w.sizes(), g, groups);
    const Choice c = choose<cudnnConvolutionBwdDataAlgoPerf_t>(
        case_key(Direction::BackwardData, dx, w.sizes(), g, groups, bench), dx.device(),
        "conv backward (input)",
        [&](cudnnConvolutionBwdDataAlgoPerf_t* p, int max, int* n) {
          check_cudnn(cudnnGetConvolutionBackwardDataAlgorithm_v7(call.h, call.w.d, call.y.d,
                                                                  call.conv.d, call.x.d, max, n, p),
                      "cudnnGetConvolutionBackwardDataAlgorithm_v7");
        },
        [&](cudnnConvolutionBwdDataAlgoPerf_t* p, int max, int* n, const Tensor& ws) {
          check_cudnn(cudnnFindConvolutionBackwardDataAlgorithmEx(
                          call.h, call.w.d, w.data_ptr(), call.y.d, dy.data_ptr(), call.conv.d,
                          call.x.d, dx.data_ptr(), max, n, p, ws.data_ptr(), ws.numel()),
                      "cudnnFindConvolutionBackwardDataAlgorithmEx");
        });
    const Tensor ws = workspace_for(c, dx.device());
    audit::record_kernel_launch();
    check_cudnn(cudnnConvolutionBackwardData(
                    call.h, s.one(), call.w.d, w.data_ptr(), call.y.d, dy.data_ptr(), call.conv.d,
                    static_cast<cudnnConvolutionBwdDataAlgo_t>(c.algo), ws.data_ptr(), c.workspace,
                    s.zero(), call.x.d, dx.data_ptr()),
                "cudnnConvolutionBackwardData");
    write_back(grad_in, dx);
  }
  if (grad_weight.defined()) {
    const Tensor x = dense(in), dw = dense_output(grad_weight);
    Call call(x, dy, dw.sizes(), g, groups);
    const Choice c = choose<cudnnConvolutionBwdFilterAlgoPerf_t>(
        case_key(Direction::BackwardFilter, x, dw.sizes(), g, groups, bench), x.device(),
        "conv backward (weight)",
        [&](cudnnConvolutionBwdFilterAlgoPerf_t* p, int max, int* n) {
          check_cudnn(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                          call.h, call.x.d, call.y.d, call.conv.d, call.w.d, max, n, p),
                      "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
        },
        [&](cudnnConvolutionBwdFilterAlgoPerf_t* p, int max, int* n, const Tensor& ws) {
          check_cudnn(cudnnFindConvolutionBackwardFilterAlgorithmEx(
                          call.h, call.x.d, x.data_ptr(), call.y.d, dy.data_ptr(), call.conv.d,
                          call.w.d, dw.data_ptr(), max, n, p, ws.data_ptr(), ws.numel()),
                      "cudnnFindConvolutionBackwardFilterAlgorithmEx");
        });
    const Tensor ws = workspace_for(c, x.device());
    audit::record_kernel_launch();
    check_cudnn(cudnnConvolutionBackwardFilter(
                    call.h, s.one(), call.x.d, x.data_ptr(), call.y.d, dy.data_ptr(), call.conv.d,
                    static_cast<cudnnConvolutionBwdFilterAlgo_t>(c.algo), ws.data_ptr(),
                    c.workspace, s.zero(), call.w.d, dw.data_ptr()),
                "cudnnConvolutionBackwardFilter");
    write_back(grad_weight, dw);
  }
  if (grad_bias.defined()) {
    const Tensor db = dense_output(grad_bias);
    cudnnHandle_t h = handle_for(device);
    check_cudnn(cudnnSetStream(h, detail::current_cuda_stream(device)), "cudnnSetStream");
    TensorDesc dyd(dy.sizes(), dy.dtype()), dbd(bias_shape(db.numel(), dy.dim()), db.dtype());
    audit::record_kernel_launch();
    check_cudnn(cudnnConvolutionBackwardBias(h, s.one(), dyd.d, dy.data_ptr(), s.zero(), dbd.d,
                                             db.data_ptr()),
                "cudnnConvolutionBackwardBias");
    write_back(grad_bias, db);
  }
}

}  // namespace cuda
}  // namespace ember
