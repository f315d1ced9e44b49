// cuDNN for the simulator: the legacy convolution calls Ember makes (src/cuda_cudnn), with cuDNN's
// argument checks, algorithm lists and workspace rules, each computed on the handle's stream by
// a direct loop that accumulates in double (the reference of every dtype; a GPU's TF32 rounding
// is not imitated). Two algorithms per direction stand for cuDNN's families: in the backward
// ones ALGO_0 is non-deterministic and needs no workspace, ALGO_1 is deterministic and needs one,
// and the heuristics list ALGO_0 first, so `deterministic` has a visible effect. A workspace is
// checked (live memory of the stream's device, the whole range) and scribbled on by the call, as
// cuBLAS's shim does, so one freed or shared too early faults or corrupts a result.
#include "cudnn.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_sim.h"
#include "ember/half.h"
#include "sim_state.h"

struct cudnnContext {
  int device = 0;
  cudaStream_t stream = nullptr;
};
struct cudnnTensorStruct {
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  int nb_dims = 0;
  std::array<int, CUDNN_DIM_MAX> dims{}, strides{};
};
struct cudnnFilterStruct {
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  int nb_dims = 0;
  std::array<int, CUDNN_DIM_MAX> dims{};
};
struct cudnnConvolutionStruct {
  int spatial = 0;
  std::array<int, 3> pads{}, strides{}, dilations{};
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  int groups = 1;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

namespace {

using cuda_sim::MemoryKind;
using cuda_sim::PointerInfo;
using cuda_sim::Stream;
using cuda_sim::Task;

constexpr size_t kAlgoOneWorkspace = 64 << 10;  // what ALGO_1 of every direction asks for
constexpr unsigned char kWorkspaceScribble = 0x5a;

std::atomic<uint64_t> g_searches{0};
thread_local cuda_sim::CudnnCallRecord t_last_call;

size_t elem_size(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT:
      return 4;
    case CUDNN_DATA_DOUBLE:
      return 8;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
      return 2;
  }
  return 0;
}

double load(const void* base, cudnnDataType_t t, int64_t i) {
  switch (t) {
    case CUDNN_DATA_FLOAT:
      return static_cast<const float*>(base)[i];
    case CUDNN_DATA_DOUBLE:
      return static_cast<const double*>(base)[i];
    case CUDNN_DATA_HALF:
      return static_cast<float>(static_cast<const ember::Half*>(base)[i]);
    case CUDNN_DATA_BFLOAT16:
      return static_cast<float>(static_cast<const ember::BFloat16*>(base)[i]);
  }
  return 0;
}

void store(void* base, cudnnDataType_t t, int64_t i, double v) {
  switch (t) {
    case CUDNN_DATA_FLOAT:
      static_cast<float*>(base)[i] = static_cast<float>(v);
      break;
    case CUDNN_DATA_DOUBLE:
      static_cast<double*>(base)[i] = v;
      break;
    case CUDNN_DATA_HALF:
      static_cast<ember::Half*>(base)[i] = ember::Half(static_cast<float>(v));
      break;
    case CUDNN_DATA_BFLOAT16:
      static_cast<ember::BFloat16*>(base)[i] = ember::BFloat16(static_cast<float>(v));
      break;
  }
}

// out = alpha * value + beta * out, where beta == 0 never reads out (it may hold poison).
void blend(void* out, cudnnDataType_t t, int64_t i, double value, double alpha, double beta) {
  store(out, t, i, alpha * value + (beta == 0 ? 0.0 : beta * load(out, t, i)));
}

// One convolution's geometry, spatial dims padded to three (D, H, W) with size-1 leading ones.
struct Geometry {
  int64_t n = 0, c = 0, k = 0, groups = 1;
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1};
  std::array<int64_t, 3> pad{}, stride{1, 1, 1}, dilation{1, 1, 1};
  std::array<int64_t, 5> x_strides{}, y_strides{};  // N, C, D, H, W
  cudnnDataType_t type = CUDNN_DATA_FLOAT;

  int64_t cg() const { return c / groups; }
  int64_t kg() const { return k / groups; }
  int64_t x_at(int64_t b, int64_t ch, const std::array<int64_t, 3>& p) const {
    return b * x_strides[0] + ch * x_strides[1] + p[0] * x_strides[2] + p[1] * x_strides[3] +
           p[2] * x_strides[4];
  }
  int64_t y_at(int64_t b, int64_t ch, const std::array<int64_t, 3>& p) const {
    return b * y_strides[0] + ch * y_strides[1] + p[0] * y_strides[2] + p[1] * y_strides[3] +
           p[2] * y_strides[4];
  }
  // Filters are dense [K, C / groups, kd, kh, kw].
  int64_t w_at(int64_t ko, int64_t ci, const std::array<int64_t, 3>& q) const {
    return (((ko * cg() + ci) * kernel[0] + q[0]) * kernel[1] + q[1]) * kernel[2] + q[2];
  }
  // Calls f(out position, kernel offset, in position) for every tap that lands inside the input.
  template <typename F>
  void for_each_tap(F&& f) const {
    std::array<int64_t, 3> o{}, q{}, p{};
    for (o[0] = 0; o[0] < out[0]; ++o[0])
      for (o[1] = 0; o[1] < out[1]; ++o[1])
        for (o[2] = 0; o[2] < out[2]; ++o[2])
          for (q[0] = 0; q[0] < kernel[0]; ++q[0])
            for (q[1] = 0; q[1] < kernel[1]; ++q[1])
              for (q[2] = 0; q[2] < kernel[2]; ++q[2]) {
                bool inside = true;
                for (int s = 0; s < 3; ++s) {
                  p[s] = o[s] * stride[s] - pad[s] + q[s] * dilation[s];
                  inside = inside && p[s] >= 0 && p[s] < in[s];
                }
                if (inside) f(o, q, p);
              }
  }
};

bool set(const cudnnTensorStruct* t) {
  return t && t->nb_dims >= 3;
}

// The geometry of (x, w, y) under conv, or the status cuDNN gives for the mismatch.
cudnnStatus_t geometry(const cudnnTensorStruct* x, const cudnnFilterStruct* w,
                       const cudnnConvolutionStruct* conv, const cudnnTensorStruct* y,
                       Geometry* g) {
  if (!set(x) || !set(y) || !w || w->nb_dims < 3 || !conv || conv->spatial == 0)
    return CUDNN_STATUS_BAD_PARAM;
  const int nb = x->nb_dims;
  if (w->nb_dims != nb || y->nb_dims != nb || conv->spatial != nb - 2)
    return CUDNN_STATUS_BAD_PARAM;
  if (x->type != w->type || x->type != y->type) return CUDNN_STATUS_BAD_PARAM;
  if (conv->mode != CUDNN_CROSS_CORRELATION) return CUDNN_STATUS_NOT_SUPPORTED;
  const bool wide = x->type == CUDNN_DATA_DOUBLE;
  if (wide != (conv->compute == CUDNN_DATA_DOUBLE)) return CUDNN_STATUS_NOT_SUPPORTED;
  g->type = x->type;
  g->n = x->dims[0];
  g->c = x->dims[1];
  g->k = w->dims[0];
  g->groups = conv->groups;
  if (g->c % g->groups != 0 || g->k % g->groups != 0 || w->dims[1] != g->c / g->groups ||
      y->dims[0] != g->n || y->dims[1] != g->k)
    return CUDNN_STATUS_BAD_PARAM;
  const int lead = 3 - conv->spatial;  // size-1 leading spatial dims
  for (int s = 0; s < conv->spatial; ++s) {
    const int d = lead + s;
    g->in[d] = x->dims[2 + s];
    g->kernel[d] = w->dims[2 + s];
    g->pad[d] = conv->pads[s];
    g->stride[d] = conv->strides[s];
    g->dilation[d] = conv->dilations[s];
    const int64_t span = g->dilation[d] * (g->kernel[d] - 1) + 1;
    const int64_t o = (g->in[d] + 2 * g->pad[d] - span) / g->stride[d] + 1;
    if (o < 1 || y->dims[2 + s] != o) return CUDNN_STATUS_BAD_PARAM;
    g->out[d] = o;
  }
  g->x_strides[0] = x->strides[0];
  g->x_strides[1] = x->strides[1];
  g->y_strides[0] = y->strides[0];
  g->y_strides[1] = y->strides[1];
  for (int s = 0; s < 3; ++s) {
    g->x_strides[2 + s] = s < lead ? 0 : x->strides[2 + s - lead];
    g->y_strides[2 + s] = s < lead ? 0 : y->strides[2 + s - lead];
  }
  return CUDNN_STATUS_SUCCESS;
}

enum class Direction { Forward, BackwardData, BackwardFilter };

const char* call_name(Direction d) {
  switch (d) {
    case Direction::Forward:
      return "cudnnConvolutionForward";
    case Direction::BackwardData:
      return "cudnnConvolutionBackwardData";
    case Direction::BackwardFilter:
      return "cudnnConvolutionBackwardFilter";
  }
  return "cudnn";
}

size_t workspace_of(int algo) {
  return algo == 1 ? kAlgoOneWorkspace : 0;
}

// The stream a handle's calls go to, or null (then the call fails).
Stream* stream_of(cudnnHandle_t h) {
  const int saved = cuda_sim::current_device_index();
  cudaSetDevice(h->device);
  Stream* s = cuda_sim::resolve_stream(h->stream);
  cudaSetDevice(saved);
  return s;
}

// Whether [p, p + bytes) is live memory of `device`; otherwise the device gets a sticky
// illegal-address error naming `what`.
bool check_range(int device, const char* call, const char* what, const void* p, size_t bytes) {
  const char* first = static_cast<const char*>(p);
  for (const void* a : {static_cast<const void*>(first),
                        static_cast<const void*>(first + (bytes ? bytes - 1 : 0))}) {
    const PointerInfo info = cuda_sim::classify(a);
    if (info.kind != MemoryKind::DeviceLive || info.device != device ||
        (a == first && first + bytes > reinterpret_cast<const char*>(info.base) + info.size)) {
      cuda_sim::set_sticky(device, cudaErrorIllegalAddress,
                           std::string(call) + " on cuda:" + std::to_string(device) +
                               " was given " + what + " of " + std::to_string(bytes) +
                               " bytes whose " + (a == first ? "start" : "end") + " is " +
                               cuda_sim::describe(info, a));
      return false;
    }
  }
  return true;
}

// The bytes a tensor descriptor spans (its largest offset, plus one element).
size_t span_bytes(const cudnnTensorStruct* t) {
  int64_t last = 0;
  for (int i = 0; i < t->nb_dims; ++i) last += int64_t(t->dims[i] - 1) * t->strides[i];
  return static_cast<size_t>(last + 1) * elem_size(t->type);
}
size_t filter_bytes(const cudnnFilterStruct* w) {
  int64_t n = 1;
  for (int i = 0; i < w->nb_dims; ++i) n *= w->dims[i];
  return static_cast<size_t>(n) * elem_size(w->type);
}

void scribble(void* workspace, size_t bytes) {
  if (!workspace || !bytes) return;
  std::memset(workspace, kWorkspaceScribble, std::min<size_t>(bytes, 4096));
  std::memset(static_cast<char*>(workspace) + bytes - std::min<size_t>(bytes, 4096),
              kWorkspaceScribble, std::min<size_t>(bytes, 4096));
}

void run_forward(const Geometry& g, const void* x, const void* w, void* y, double alpha,
                 double beta) {
  const int64_t plane = g.out[0] * g.out[1] * g.out[2];
  std::vector<double> acc(static_cast<size_t>(plane));
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t ko = 0; ko < g.k; ++ko) {
      const int64_t grp = ko / g.kg();
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t ci = 0; ci < g.cg(); ++ci) {
        const int64_t ch = grp * g.cg() + ci;
        g.for_each_tap([&](const auto& o, const auto& q, const auto& p) {
          acc[static_cast<size_t>((o[0] * g.out[1] + o[1]) * g.out[2] + o[2])] +=
              load(x, g.type, g.x_at(b, ch, p)) * load(w, g.type, g.w_at(ko, ci, q));
        });
      }
      std::array<int64_t, 3> o{};
      for (o[0] = 0; o[0] < g.out[0]; ++o[0])
        for (o[1] = 0; o[1] < g.out[1]; ++o[1])
          for (o[2] = 0; o[2] < g.out[2]; ++o[2])
            blend(y, g.type, g.y_at(b, ko, o),
                  acc[static_cast<size_t>((o[0] * g.out[1] + o[1]) * g.out[2] + o[2])], alpha,
                  beta);
    }
}

void run_backward_data(const Geometry& g, const void* w, const void* dy, void* dx, double alpha,
                       double beta) {
  const int64_t plane = g.in[0] * g.in[1] * g.in[2];
  std::vector<double> acc(static_cast<size_t>(plane));
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t ch = 0; ch < g.c; ++ch) {
      const int64_t grp = ch / g.cg(), ci = ch % g.cg();
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t kk = 0; kk < g.kg(); ++kk) {
        const int64_t ko = grp * g.kg() + kk;
        g.for_each_tap([&](const auto& o, const auto& q, const auto& p) {
          acc[static_cast<size_t>((p[0] * g.in[1] + p[1]) * g.in[2] + p[2])] +=
              load(dy, g.type, g.y_at(b, ko, o)) * load(w, g.type, g.w_at(ko, ci, q));
        });
      }
      std::array<int64_t, 3> p{};
      for (p[0] = 0; p[0] < g.in[0]; ++p[0])
        for (p[1] = 0; p[1] < g.in[1]; ++p[1])
          for (p[2] = 0; p[2] < g.in[2]; ++p[2])
            blend(dx, g.type, g.x_at(b, ch, p),
                  acc[static_cast<size_t>((p[0] * g.in[1] + p[1]) * g.in[2] + p[2])], alpha, beta);
    }
}

void run_backward_filter(const Geometry& g, const void* x, const void* dy, void* dw, double alpha,
                         double beta) {
  const int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2];
  std::vector<double> acc(static_cast<size_t>(taps));
  for (int64_t ko = 0; ko < g.k; ++ko)
    for (int64_t ci = 0; ci < g.cg(); ++ci) {
      const int64_t ch = (ko / g.kg()) * g.cg() + ci;
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t b = 0; b < g.n; ++b) {
        g.for_each_tap([&](const auto& o, const auto& q, const auto& p) {
          acc[static_cast<size_t>((q[0] * g.kernel[1] + q[1]) * g.kernel[2] + q[2])] +=
              load(dy, g.type, g.y_at(b, ko, o)) * load(x, g.type, g.x_at(b, ch, p));
        });
      }
      std::array<int64_t, 3> q{};
      for (q[0] = 0; q[0] < g.kernel[0]; ++q[0])
        for (q[1] = 0; q[1] < g.kernel[1]; ++q[1])
          for (q[2] = 0; q[2] < g.kernel[2]; ++q[2])
            blend(dw, g.type, g.w_at(ko, ci, q),
                  acc[static_cast<size_t>((q[0] * g.kernel[1] + q[1]) * g.kernel[2] + q[2])], alpha,
                  beta);
    }
}

double scalar(const void* p, cudnnDataType_t t) {
  return t == CUDNN_DATA_DOUBLE ? *static_cast<const double*>(p) : *static_cast<const float*>(p);
}

// One convolution call: checks, then the loop queued on the handle's stream.
cudnnStatus_t convolve(Direction dir, cudnnHandle_t h, const void* alpha, const Geometry& g,
                       const cudnnTensorStruct* x_desc, const cudnnFilterStruct* w_desc,
                       const cudnnTensorStruct* y_desc, const void* a, const void* b, void* out,
                       int algo, void* workspace, size_t workspace_bytes, const void* beta,
                       const cudnnConvolutionStruct* conv) {
  if (algo != 0 && algo != 1) return CUDNN_STATUS_NOT_SUPPORTED;
  if (workspace_bytes < workspace_of(algo) || (workspace_of(algo) && !workspace))
    return CUDNN_STATUS_BAD_PARAM;
  if (!alpha || !beta) return CUDNN_STATUS_BAD_PARAM;
  Stream* s = stream_of(h);
  if (!s || cuda_sim::sticky_error(s->device)) return CUDNN_STATUS_EXECUTION_FAILED;
  const char* call = call_name(dir);
  const size_t x_bytes = span_bytes(x_desc), w_bytes = filter_bytes(w_desc),
               y_bytes = span_bytes(y_desc);
  bool ok = true;
  switch (dir) {
    case Direction::Forward:
      ok = check_range(s->device, call, "x", a, x_bytes) &&
           check_range(s->device, call, "w", b, w_bytes) &&
           check_range(s->device, call, "y", out, y_bytes);
      break;
    case Direction::BackwardData:
      ok = check_range(s->device, call, "w", a, w_bytes) &&
           check_range(s->device, call, "dy", b, y_bytes) &&
           check_range(s->device, call, "dx", out, x_bytes);
      break;
    case Direction::BackwardFilter:
      ok = check_range(s->device, call, "x", a, x_bytes) &&
           check_range(s->device, call, "dy", b, y_bytes) &&
           check_range(s->device, call, "dw", out, w_bytes);
      break;
  }
  if (ok && workspace_bytes)
    ok = check_range(s->device, call, "a workspace", workspace, workspace_bytes);
  if (!ok) return CUDNN_STATUS_EXECUTION_FAILED;
  const double al = scalar(alpha, g.type), be = scalar(beta, g.type);
  s->enqueue(Task{[=] {
                    scribble(workspace, workspace_bytes);
                    switch (dir) {
                      case Direction::Forward:
                        run_forward(g, a, b, out, al, be);
                        break;
                      case Direction::BackwardData:
                        run_backward_data(g, a, b, out, al, be);
                        break;
                      case Direction::BackwardFilter:
                        run_backward_filter(g, a, b, out, al, be);
                        break;
                    }
                  },
                  {s->device},
                  call});
  t_last_call = {call, algo, workspace_bytes, static_cast<int>(conv->math), h->stream};
  return CUDNN_STATUS_SUCCESS;
}

// The heuristics' list for a direction: ALGO_1 first for the forward (the precomputed implicit
// GEMM, as cuDNN usually ranks it), ALGO_0 first for the backward ones.
template <typename Perf, typename Algo>
cudnnStatus_t list_algorithms(Direction dir, const cudnnConvolutionStruct* conv, int requested,
                              int* returned, Perf* results, size_t workspace_limit, bool timed) {
  if (!returned || !results || requested < 1) return CUDNN_STATUS_BAD_PARAM;
  const std::array<int, 2> order =
      dir == Direction::Forward ? std::array<int, 2>{1, 0} : std::array<int, 2>{0, 1};
  const int n = std::min(requested, 2);
  for (int i = 0; i < n; ++i) {
    Perf& r = results[i];
    std::memset(&r, 0, sizeof r);
    r.algo = static_cast<Algo>(order[i]);
    r.memory = workspace_of(order[i]);
    r.status = r.memory <= workspace_limit ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED;
    r.time = timed ? 0.5f + static_cast<float>(i) : -1.0f;
    r.determinism =
        dir != Direction::Forward && order[i] == 0 ? CUDNN_NON_DETERMINISTIC : CUDNN_DETERMINISTIC;
    r.mathType = conv->math;
  }
  *returned = n;
  return CUDNN_STATUS_SUCCESS;
}

// A search (cudnnFind*AlgorithmEx): runs every algorithm that fits the workspace, in the
// heuristics' order (each writes the output, as cuDNN's do), counts the search and reports the
// algorithms fastest first; the simulator's times are fixed, in heuristics order.
template <typename Perf, typename Algo>
cudnnStatus_t search(Direction dir, cudnnHandle_t h, const cudnnTensorStruct* x_desc,
                     const cudnnFilterStruct* w_desc, const cudnnConvolutionStruct* conv,
                     const cudnnTensorStruct* y_desc, const void* a, const void* b, void* out,
                     int requested, int* returned, Perf* results, void* workspace,
                     size_t workspace_bytes) {
  Geometry g;
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (cudnnStatus_t st = geometry(x_desc, w_desc, conv, y_desc, &g)) return st;
  const double one = 1, zero = 0;
  const float onef = 1, zerof = 0;
  const bool wide = g.type == CUDNN_DATA_DOUBLE;
  const void* alpha = wide ? static_cast<const void*>(&one) : &onef;
  const void* beta = wide ? static_cast<const void*>(&zero) : &zerof;
  for (int algo : dir == Direction::Forward ? std::array<int, 2>{1, 0} : std::array<int, 2>{0, 1}) {
    if (workspace_of(algo) > workspace_bytes) continue;
    if (cudnnStatus_t st = convolve(dir, h, alpha, g, x_desc, w_desc, y_desc, a, b, out, algo,
                                    workspace, workspace_bytes, beta, conv))
      return st;
  }
  g_searches.fetch_add(1);
  return list_algorithms<Perf, Algo>(dir, conv, requested, returned, results, workspace_bytes,
                                     true);
}

}  // namespace

size_t cudnnGetVersion(void) {
  return CUDNN_VERSION;
}

const char* cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
    case CUDNN_STATUS_SUCCESS:
      return "CUDNN_STATUS_SUCCESS";
    case CUDNN_STATUS_NOT_INITIALIZED:
      return "CUDNN_STATUS_NOT_INITIALIZED";
    case CUDNN_STATUS_BAD_PARAM:
      return "CUDNN_STATUS_BAD_PARAM";
    case CUDNN_STATUS_NOT_SUPPORTED:
      return "CUDNN_STATUS_NOT_SUPPORTED";
    case CUDNN_STATUS_INTERNAL_ERROR:
      return "CUDNN_STATUS_INTERNAL_ERROR";
    case CUDNN_STATUS_EXECUTION_FAILED:
      return "CUDNN_STATUS_EXECUTION_FAILED";
  }
  return "CUDNN_STATUS_UNKNOWN";
}

cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) {
  if (!handle) return CUDNN_STATUS_BAD_PARAM;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return CUDNN_STATUS_NOT_INITIALIZED;
  *handle = new cudnnContext{dev, nullptr};
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  delete handle;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream) {
  if (!handle) return CUDNN_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* desc) {
  if (!desc) return CUDNN_STATUS_BAD_PARAM;
  *desc = new cudnnTensorStruct;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t desc) {
  delete desc;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t desc, cudnnDataType_t type,
                                         int nb_dims, const int dims[], const int strides[]) {
  if (!desc || !dims || !strides || nb_dims < 3 || nb_dims > CUDNN_DIM_MAX || elem_size(type) == 0)
    return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < nb_dims; ++i)
    if (dims[i] < 1 || strides[i] < 1) return CUDNN_STATUS_BAD_PARAM;
  desc->type = type;
  desc->nb_dims = nb_dims;
  std::copy(dims, dims + nb_dims, desc->dims.begin());
  std::copy(strides, strides + nb_dims, desc->strides.begin());
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* desc) {
  if (!desc) return CUDNN_STATUS_BAD_PARAM;
  *desc = new cudnnFilterStruct;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t desc) {
  delete desc;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t desc, cudnnDataType_t type,
                                         cudnnTensorFormat_t format, int nb_dims,
                                         const int dims[]) {
  if (!desc || !dims || nb_dims < 3 || nb_dims > CUDNN_DIM_MAX || elem_size(type) == 0)
    return CUDNN_STATUS_BAD_PARAM;
  if (format != CUDNN_TENSOR_NCHW) return CUDNN_STATUS_NOT_SUPPORTED;
  for (int i = 0; i < nb_dims; ++i)
    if (dims[i] < 1) return CUDNN_STATUS_BAD_PARAM;
  desc->type = type;
  desc->nb_dims = nb_dims;
  std::copy(dims, dims + nb_dims, desc->dims.begin());
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* desc) {
  if (!desc) return CUDNN_STATUS_BAD_PARAM;
  *desc = new cudnnConvolutionStruct;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t desc) {
  delete desc;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t desc, int array_length,
                                              const int pads[], const int strides[],
                                              const int dilations[], cudnnConvolutionMode_t mode,
                                              cudnnDataType_t compute_type) {
  if (!desc || !pads || !strides || !dilations || array_length < 1 || array_length > 3 ||
      elem_size(compute_type) == 0)
    return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < array_length; ++i)
    if (pads[i] < 0 || strides[i] < 1 || dilations[i] < 1) return CUDNN_STATUS_BAD_PARAM;
  desc->spatial = array_length;
  std::copy(pads, pads + array_length, desc->pads.begin());
  std::copy(strides, strides + array_length, desc->strides.begin());
  std::copy(dilations, dilations + array_length, desc->dilations.begin());
  desc->mode = mode;
  desc->compute = compute_type;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t desc, int groups) {
  if (!desc || groups < 1) return CUDNN_STATUS_BAD_PARAM;
  desc->groups = groups;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t desc, cudnnMathType_t math) {
  if (!desc || math < CUDNN_DEFAULT_MATH || math > CUDNN_FMA_MATH) return CUDNN_STATUS_BAD_PARAM;
  desc->math = math;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t h, cudnnTensorDescriptor_t x,
                                                     cudnnFilterDescriptor_t w,
                                                     cudnnConvolutionDescriptor_t conv,
                                                     cudnnTensorDescriptor_t y, int requested,
                                                     int* returned,
                                                     cudnnConvolutionFwdAlgoPerf_t* results) {
  Geometry g;
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (cudnnStatus_t st = geometry(x, w, conv, y, &g)) return st;
  return list_algorithms<cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t>(
      Direction::Forward, conv, requested, returned, results, SIZE_MAX, false);
}
cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t h, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy,
    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t dx, int requested, int* returned,
    cudnnConvolutionBwdDataAlgoPerf_t* results) {
  Geometry g;
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (cudnnStatus_t st = geometry(dx, w, conv, dy, &g)) return st;
  return list_algorithms<cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t>(
      Direction::BackwardData, conv, requested, returned, results, SIZE_MAX, false);
}
cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t dy,
    cudnnConvolutionDescriptor_t conv, cudnnFilterDescriptor_t dw, int requested, int* returned,
    cudnnConvolutionBwdFilterAlgoPerf_t* results) {
  Geometry g;
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (cudnnStatus_t st = geometry(x, dw, conv, dy, &g)) return st;
  return list_algorithms<cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t>(
      Direction::BackwardFilter, conv, requested, returned, results, SIZE_MAX, false);
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(
    cudnnHandle_t h, cudnnTensorDescriptor_t x_desc, const void* x, cudnnFilterDescriptor_t w_desc,
    const void* w, cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y_desc, void* y,
    int requested, int* returned, cudnnConvolutionFwdAlgoPerf_t* results, void* workspace,
    size_t workspace_bytes) {
  return search<cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t>(
      Direction::Forward, h, x_desc, w_desc, conv, y_desc, x, w, y, requested, returned, results,
      workspace, workspace_bytes);
}
cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    cudnnHandle_t h, cudnnFilterDescriptor_t w_desc, const void* w, cudnnTensorDescriptor_t dy_desc,
    const void* dy, cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t dx_desc, void* dx,
    int requested, int* returned, cudnnConvolutionBwdDataAlgoPerf_t* results, void* workspace,
    size_t workspace_bytes) {
  return search<cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t>(
      Direction::BackwardData, h, dx_desc, w_desc, conv, dy_desc, w, dy, dx, requested, returned,
      results, workspace, workspace_bytes);
}
cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t h, cudnnTensorDescriptor_t x_desc, const void* x, cudnnTensorDescriptor_t dy_desc,
    const void* dy, cudnnConvolutionDescriptor_t conv, cudnnFilterDescriptor_t dw_desc, void* dw,
    int requested, int* returned, cudnnConvolutionBwdFilterAlgoPerf_t* results, void* workspace,
    size_t workspace_bytes) {
  return search<cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t>(
      Direction::BackwardFilter, h, x_desc, dw_desc, conv, dy_desc, x, dy, dw, requested, returned,
      results, workspace, workspace_bytes);
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t h, cudnnTensorDescriptor_t x,
                                                      cudnnFilterDescriptor_t w,
                                                      cudnnConvolutionDescriptor_t conv,
                                                      cudnnTensorDescriptor_t y,
                                                      cudnnConvolutionFwdAlgo_t algo,
                                                      size_t* bytes) {
  Geometry g;
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (!bytes) return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t st = geometry(x, w, conv, y, &g)) return st;
  if (algo != 0 && algo != 1) return CUDNN_STATUS_NOT_SUPPORTED;
  *bytes = workspace_of(algo);
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t h, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy,
    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t dx,
    cudnnConvolutionBwdDataAlgo_t algo, size_t* bytes) {
  Geometry g;
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (!bytes) return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t st = geometry(dx, w, conv, dy, &g)) return st;
  if (algo != 0 && algo != 1) return CUDNN_STATUS_NOT_SUPPORTED;
  *bytes = workspace_of(algo);
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t dy,
    cudnnConvolutionDescriptor_t conv, cudnnFilterDescriptor_t dw,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t* bytes) {
  Geometry g;
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (!bytes) return CUDNN_STATUS_BAD_PARAM;
  if (cudnnStatus_t st = geometry(x, dw, conv, dy, &g)) return st;
  if (algo != 0 && algo != 1) return CUDNN_STATUS_NOT_SUPPORTED;
  *bytes = workspace_of(algo);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t h, const void* alpha,
                                      cudnnTensorDescriptor_t x_desc, const void* x,
                                      cudnnFilterDescriptor_t w_desc, const void* w,
                                      cudnnConvolutionDescriptor_t conv,
                                      cudnnConvolutionFwdAlgo_t algo, void* workspace,
                                      size_t workspace_bytes, const void* beta,
                                      cudnnTensorDescriptor_t y_desc, void* y) {
  Geometry g;
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (cudnnStatus_t st = geometry(x_desc, w_desc, conv, y_desc, &g)) return st;
  return convolve(Direction::Forward, h, alpha, g, x_desc, w_desc, y_desc, x, w, y, algo, workspace,
                  workspace_bytes, beta, conv);
}
cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t h, const void* alpha,
                                           cudnnFilterDescriptor_t w_desc, const void* w,
                                           cudnnTensorDescriptor_t dy_desc, const void* dy,
                                           cudnnConvolutionDescriptor_t conv,
                                           cudnnConvolutionBwdDataAlgo_t algo, void* workspace,
                                           size_t workspace_bytes, const void* beta,
                                           cudnnTensorDescriptor_t dx_desc, void* dx) {
  Geometry g;
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (cudnnStatus_t st = geometry(dx_desc, w_desc, conv, dy_desc, &g)) return st;
  return convolve(Direction::BackwardData, h, alpha, g, dx_desc, w_desc, dy_desc, w, dy, dx, algo,
                  workspace, workspace_bytes, beta, conv);
}
cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t h, const void* alpha,
                                             cudnnTensorDescriptor_t x_desc, const void* x,
                                             cudnnTensorDescriptor_t dy_desc, const void* dy,
                                             cudnnConvolutionDescriptor_t conv,
                                             cudnnConvolutionBwdFilterAlgo_t algo, void* workspace,
                                             size_t workspace_bytes, const void* beta,
                                             cudnnFilterDescriptor_t dw_desc, void* dw) {
  Geometry g;
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (cudnnStatus_t st = geometry(x_desc, dw_desc, conv, dy_desc, &g)) return st;
  return convolve(Direction::BackwardFilter, h, alpha, g, x_desc, dw_desc, dy_desc, x, dy, dw, algo,
                  workspace, workspace_bytes, beta, conv);
}

// db [1, K, 1...] = alpha * dy summed over all but the channel dim + beta * db.
cudnnStatus_t cudnnConvolutionBackwardBias(cudnnHandle_t h, const void* alpha,
                                           cudnnTensorDescriptor_t dy_desc, const void* dy,
                                           const void* beta, cudnnTensorDescriptor_t db_desc,
                                           void* db) {
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (!set(dy_desc) || !set(db_desc) || !alpha || !beta) return CUDNN_STATUS_BAD_PARAM;
  if (dy_desc->type != db_desc->type || db_desc->nb_dims != dy_desc->nb_dims)
    return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < db_desc->nb_dims; ++i)
    if (db_desc->dims[i] != (i == 1 ? dy_desc->dims[1] : 1)) return CUDNN_STATUS_BAD_PARAM;
  Stream* s = stream_of(h);
  if (!s || cuda_sim::sticky_error(s->device)) return CUDNN_STATUS_EXECUTION_FAILED;
  const char* call = "cudnnConvolutionBackwardBias";
  if (!check_range(s->device, call, "dy", dy, span_bytes(dy_desc)) ||
      !check_range(s->device, call, "db", db, span_bytes(db_desc)))
    return CUDNN_STATUS_EXECUTION_FAILED;
  const cudnnTensorStruct y = *dy_desc, b = *db_desc;
  const double al = scalar(alpha, y.type), be = scalar(beta, y.type);
  s->enqueue(Task{[=] {
                    int64_t rest = 1;
                    for (int i = 2; i < y.nb_dims; ++i) rest *= y.dims[i];
                    for (int64_t k = 0; k < y.dims[1]; ++k) {
                      double sum = 0;
                      for (int64_t n = 0; n < y.dims[0]; ++n)
                        for (int64_t r = 0; r < rest; ++r) {
                          int64_t off = n * y.strides[0] + k * y.strides[1], left = r;
                          for (int i = y.nb_dims - 1; i >= 2; --i) {
                            off += (left % y.dims[i]) * y.strides[i];
                            left /= y.dims[i];
                          }
                          sum += load(dy, y.type, off);
                        }
                      blend(db, b.type, k * b.strides[1], sum, al, be);
                    }
                  },
                  {s->device},
                  call});
  return CUDNN_STATUS_SUCCESS;
}

// c = alpha * a + beta * c, a broadcast over c where its dims are 1 (the bias of a convolution).
cudnnStatus_t cudnnAddTensor(cudnnHandle_t h, const void* alpha, cudnnTensorDescriptor_t a_desc,
                             const void* a, const void* beta, cudnnTensorDescriptor_t c_desc,
                             void* c) {
  if (!h) return CUDNN_STATUS_NOT_INITIALIZED;
  if (!set(a_desc) || !set(c_desc) || !alpha || !beta) return CUDNN_STATUS_BAD_PARAM;
  if (a_desc->type != c_desc->type || a_desc->nb_dims != c_desc->nb_dims)
    return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < a_desc->nb_dims; ++i)
    if (a_desc->dims[i] != 1 && a_desc->dims[i] != c_desc->dims[i]) return CUDNN_STATUS_BAD_PARAM;
  Stream* s = stream_of(h);
  if (!s || cuda_sim::sticky_error(s->device)) return CUDNN_STATUS_EXECUTION_FAILED;
  const char* call = "cudnnAddTensor";
  if (!check_range(s->device, call, "A", a, span_bytes(a_desc)) ||
      !check_range(s->device, call, "C", c, span_bytes(c_desc)))
    return CUDNN_STATUS_EXECUTION_FAILED;
  const cudnnTensorStruct A = *a_desc, C = *c_desc;
  const double al = scalar(alpha, C.type), be = scalar(beta, C.type);
  s->enqueue(Task{[=] {
                    int64_t total = 1;
                    for (int i = 0; i < C.nb_dims; ++i) total *= C.dims[i];
                    for (int64_t e = 0; e < total; ++e) {
                      int64_t left = e, oc = 0, oa = 0;
                      for (int i = C.nb_dims - 1; i >= 0; --i) {
                        const int64_t idx = left % C.dims[i];
                        left /= C.dims[i];
                        oc += idx * C.strides[i];
                        if (A.dims[i] != 1) oa += idx * A.strides[i];
                      }
                      blend(c, C.type, oc, load(a, A.type, oa), al, be);
                    }
                  },
                  {s->device},
                  call});
  return CUDNN_STATUS_SUCCESS;
}

uint64_t cuda_sim::cudnn_searches() {
  return g_searches.load();
}

cuda_sim::CudnnCallRecord cuda_sim::last_cudnn_call() {
  return t_last_call;
}
