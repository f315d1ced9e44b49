// Arg max/min on CUDA (argmax, argmin, max(dim), min(dim)): contiguous rows take a block per row,
// long rows split across blocks and combined in split order (plan_arg_rows in reduce_paths.h);
// other layouts one thread per output, scanning as the CPU does (kernel_math/reduce_plan.h).
#include <cstdint>

#include "core/tensor_factory.h"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "cuda/reduce_paths.h"
#include "cuda/sm_count.h"
#include "cuda/warp_reduce.cuh"
#include "kernel_math/functors.h"
#include "kernel_math/reduce_plan.h"

namespace ember::cuda {
namespace {

// Arg max/min of contiguous rows. A candidate is what arg_reduce_scan would pick from some of a
// row's elements: the first NaN, else the first of the equal best values; index -1: none seen.
template <typename T>
struct ArgCandidate {
  T value;
  int64_t index;
};

// Found by warp_combine's unqualified call (argument-dependent lookup).
template <typename T>
__device__ __forceinline__ ArgCandidate<T> shfl_down(ArgCandidate<T> c, unsigned delta) {
  return {cuda::shfl_down(c.value, delta), cuda::shfl_down(c.index, delta)};
}

// The candidate the scan would pick from the union of a's and b's elements, whatever order they
// come in (the tree combines interleaved ranges).
template <typename T>
struct ArgPick {
  bool is_max;
  __device__ ArgCandidate<T> operator()(ArgCandidate<T> a, ArgCandidate<T> b) const {
    if (b.index < 0) return a;
    if (a.index < 0) return b;
    const bool a_nan = fn::isnan_(a.value), b_nan = fn::isnan_(b.value);
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return a.index < b.index ? a : b;
      return a_nan ? a : b;
    }
    if (a.value == b.value) return a.index < b.index ? a : b;
    return (is_max ? a.value > b.value : a.value < b.value) ? a : b;
  }
};

// One more element of a candidate's own sequence, which it sees in increasing index order: an
// equal value never replaces the one before it and the first NaN stays, so this is cheaper than
// ArgPick's test for candidates from anywhere.
template <typename A>
__device__ __forceinline__ void take_next(ArgCandidate<A>& best, A v, int64_t d, bool is_max) {
  const bool better =
      best.index < 0 ||
      (!fn::isnan_(best.value) && (fn::isnan_(v) || (is_max ? v > best.value : v < best.value)));
  if (better) best = {v, d};
}

// Elements per thread in flight: four independent candidates, each over every fourth of the
// thread's elements, so four loads are issued before any comparison waits on one (a single
// candidate's compare chain held a full argmax of 64M floats to a tenth of the bandwidth).
constexpr int kArgLanes = 4;

// Block (x, y): rows x, x + gridDim.x, ... (row k is in[k * D, (k + 1) * D)), elements
// [y * chunk, (y + 1) * chunk) of each; threads stride over them, then the block combines. One
// split writes the result; several write partial[k * splits + y].
template <typename in_t>
__global__ void __launch_bounds__(kThreads)
    arg_rows_kernel(const in_t* in, int64_t K, int64_t D, int64_t chunk, ArgPick<acc_t<in_t>> pick,
                    in_t* values, int64_t* indices, ArgCandidate<acc_t<in_t>>* partial) {
  using A = acc_t<in_t>;
  __shared__ WarpScratch<ArgCandidate<A>> scratch;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * chunk;
  const int64_t end = begin + chunk < D ? begin + chunk : D;
  const int64_t step = blockDim.x;
  for (int64_t k = blockIdx.x; k < K; k += gridDim.x) {
    const in_t* x = in + k * D;
    ArgCandidate<A> lane[kArgLanes];
#pragma unroll
    for (int j = 0; j < kArgLanes; ++j) lane[j] = {A(), -1};
    int64_t d = begin + threadIdx.x;
    for (; d + (kArgLanes - 1) * step < end; d += kArgLanes * step) {
      A v[kArgLanes];
#pragma unroll
      for (int j = 0; j < kArgLanes; ++j) v[j] = static_cast<A>(x[d + j * step]);
#pragma unroll
      for (int j = 0; j < kArgLanes; ++j) take_next(lane[j], v[j], d + j * step, pick.is_max);
    }
    for (int j = 0; d < end; d += step, ++j) {
      take_next(lane[j], static_cast<A>(x[d]), d, pick.is_max);
    }
    ArgCandidate<A> best = lane[0];
#pragma unroll
    for (int j = 1; j < kArgLanes; ++j) best = pick(best, lane[j]);
    best = group_combine(best, scratch.get(), pick);
    if (threadIdx.x == 0) {
      if (gridDim.y == 1) {
        values[k] = x[best.index];
        indices[k] = best.index;
      } else {
        partial[k * gridDim.y + blockIdx.y] = best;
      }
    }
  }
}

// Combines each row's split candidates in split order (thread k: row k).
template <typename in_t>
__global__ void __launch_bounds__(kThreads)
    arg_rows_combine_kernel(const in_t* in, int64_t K, int64_t D,
                            const ArgCandidate<acc_t<in_t>>* partial, int64_t splits,
                            ArgPick<acc_t<in_t>> pick, in_t* values, int64_t* indices) {
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < K;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    ArgCandidate<acc_t<in_t>> best = partial[k * splits];
    for (int64_t s = 1; s < splits; ++s) best = pick(best, partial[k * splits + s]);
    values[k] = in[k * D + best.index];
    indices[k] = best.index;
  }
}

// The same for rows with many splits, a block per row: the threads pick among the row's
// candidates, then the block combines (the pick's result does not depend on the order). One
// thread walking 4224 candidates waited on each load in turn: 0.9 ms of a full argmax of 64M
// floats whose own pass takes 0.1.
template <typename in_t>
__global__ void __launch_bounds__(kThreads)
    arg_rows_combine_block_kernel(const in_t* in, int64_t K, int64_t D,
                                  const ArgCandidate<acc_t<in_t>>* partial, int64_t splits,
                                  ArgPick<acc_t<in_t>> pick, in_t* values, int64_t* indices) {
  using A = acc_t<in_t>;
  __shared__ WarpScratch<ArgCandidate<A>> scratch;
  for (int64_t k = blockIdx.x; k < K; k += gridDim.x) {
    ArgCandidate<A> best{A(), -1};
    for (int64_t s = threadIdx.x; s < splits; s += blockDim.x) {
      best = pick(best, partial[k * splits + s]);
    }
    best = group_combine(best, scratch.get(), pick);
    if (threadIdx.x == 0) {
      values[k] = in[k * D + best.index];
      indices[k] = best.index;
    }
  }
}

// From this many splits on, a row's candidates are combined by a block rather than one thread.
constexpr int64_t kArgBlockCombineSplits = 8;

template <typename in_t>
void arg_rows(const ArgRowsPlan& plan, bool is_max, const Tensor& values, const Tensor& indices,
              const Tensor& in, int64_t K, int64_t D) {
  using A = acc_t<in_t>;
  const int device = in.device().index();
  cudaStream_t stream = detail::current_cuda_stream(device);
  const auto* ip = static_cast<const in_t*>(in.data_ptr());
  auto* vp = static_cast<in_t*>(values.data_ptr());
  auto* xp = static_cast<int64_t*>(indices.data_ptr());
  const ArgPick<A> pick{is_max};
  Tensor partial;
  ArgCandidate<A>* pp = nullptr;
  if (plan.splits > 1) {
    partial = make_empty({K * plan.splits * static_cast<int64_t>(sizeof(ArgCandidate<A>))}, kByte,
                         in.device());
    pp = static_cast<ArgCandidate<A>*>(partial.data_ptr());
  }
  launch_kernel(EMBER_KERNEL(arg_rows_kernel<in_t>),
                {dim3(static_cast<unsigned>(plan.grid_x), static_cast<unsigned>(plan.splits)),
                 dim3(kThreads), 0, stream},
                ip, K, D, plan.chunk, pick, vp, xp, pp);
  if (plan.splits > 1) {
    EMBER_CUDA_CHECK(cudaGetLastError());
    const auto* cp = static_cast<const ArgCandidate<A>*>(pp);
    if (plan.splits >= kArgBlockCombineSplits) {
      const auto blocks = static_cast<unsigned>(K < (int64_t(1) << 20) ? K : int64_t(1) << 20);
      launch_kernel(EMBER_KERNEL(arg_rows_combine_block_kernel<in_t>),
                    {blocks, kThreads, 0, stream}, ip, K, D, cp, plan.splits, pick, vp, xp);
    } else {
      launch_kernel(EMBER_KERNEL(arg_rows_combine_kernel<in_t>), {grid_for(K), kThreads, 0, stream},
                    ip, K, D, cp, plan.splits, pick, vp, xp);
    }
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

// values/indices/in1 share in's shape with one element along the scanned dim.
template <typename in_t>
struct ArgFn {
  bool is_max;
  int64_t D, sd;  // length and byte stride of the scanned dim
  __device__ void operator()(char** p, int64_t) const {
    const char* x = p[2];
    const int64_t bi = arg_reduce_scan<in_t>(x, D, sd, is_max);
    *reinterpret_cast<in_t*>(p[0]) = *reinterpret_cast<const in_t*>(x + bi * sd);
    *reinterpret_cast<int64_t*>(p[1]) = bi;
  }
};

}  // namespace

void CudaBackend::arg_reduce(bool is_max, const Tensor& values, const Tensor& indices,
                             const Tensor& in, int64_t dim) {
  check_operands(is_max ? "argmax" : "argmin", {&values, &indices, &in});
  EMBER_CHECK(in.dim() > 0 && in.size(dim) > 0, IndexError, is_max ? "argmax" : "argmin",
              "(): Expected reduction dim ", dim, " to have non-zero size");
  // Rows: `in` contiguous with only size-1 dims after `dim`, so row k is in[k * D, (k + 1) * D)
  // and its results go to element k of the (fresh, contiguous) outputs.
  const int64_t D = in.size(dim);
  int64_t after = 1;
  for (int64_t i = dim + 1; i < in.dim(); ++i) after *= in.size(i);
  if (after == 1 && in.is_contiguous() && values.is_contiguous() && indices.is_contiguous()) {
    const int64_t K = in.numel() / D;
    const int device = in.device().index();
    DeviceGuard guard(device);
    const ArgRowsPlan plan = plan_arg_rows(K, D, detail::sm_count(device));
    if (plan.rows) {
      EMBER_DISPATCH_ALL(in.dtype(), "arg_reduce",
                         [&] { arg_rows<scalar_t>(plan, is_max, values, indices, in, K, D); });
      return;
    }
  }
  DimVector sizes(in.sizes());
  sizes[dim] = 1;
  Tensor in1 = make_view(in, sizes, in.strides(), in.storage_offset());
  EMBER_DISPATCH_ALL(in.dtype(), "arg_reduce", [&] {
    const int64_t sd = in.stride(dim) * static_cast<int64_t>(sizeof(scalar_t));
    launch_elementwise<3>({&values, &indices, &in1}, ArgFn<scalar_t>{is_max, in.size(dim), sd});
  });
}

}  // namespace ember::cuda
