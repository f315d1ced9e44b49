// Reduction family on CUDA: Sum/Prod/Max/Min/Any/All over any set of dims, and arg max/min
// (contiguous rows: a block per row, long rows split across blocks; other layouts: one thread per
// output).
// Kept dims and reduced dims are coalesced on the host by core/reduce_plan.h (shared with the CPU);
// plan_reduction (cuda/reduce_paths.h) picks one of the kernels below and its launch shape:
//   Thread  - one thread per output (short rows, empty reductions);
//   Column  - the kept innermost dim is contiguous (sum(0) of a matrix): lanes take adjacent
//             outputs, so every warp load reads adjacent elements of one row;
//   Row     - each output's elements are contiguous (sum(1), a full sum): groups of threads read
//             16-byte vectors with four loads in flight each;
//   Strided - anything else: one block per output.
// Column, Row and Strided split long reductions with few outputs across blocks: each block
// writes a partial value, then a second kernel combines each output's partials in a fixed order,
// so a sum gives the same bits on every run.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

#include "core/functors.h"
#include "core/reduce_plan.h"
#include "core/tensor_factory.h"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "cuda/reduce_paths.h"
#include "cuda/warp_reduce.cuh"

namespace ember::cuda {
namespace {

static_assert(kReduceThreads == kThreads, "reduce_paths.h plans blocks of kThreads");

__device__ __forceinline__ void kept_offsets(const ReduceLayout& L, int64_t k, int64_t& in_off,
                                             int64_t& out_off) {
  in_off = out_off = 0;
  for (int d = L.nk - 1; d >= 0; --d) {
    const int64_t i = k % L.ksize[d];
    k /= L.ksize[d];
    in_off += i * L.kin[d];
    out_off += i * L.kout[d];
  }
}
__device__ __forceinline__ int64_t reduced_offset(const ReduceLayout& L, int64_t r) {
  if (L.nr == 1) return r * L.rin[0];
  int64_t off = 0;
  for (int d = L.nr - 1; d >= 0; --d) {
    off += (r % L.rsize[d]) * L.rin[d];
    r /= L.rsize[d];
  }
  return off;
}

template <typename Op, typename in_t, typename acc, typename out_t>
struct Reducer {
  static __device__ acc identity() { return Op::template identity<acc>(); }
  static __device__ acc load(in_t x) { return reduce_load<Op, acc>(x); }
  static __device__ acc combine(acc a, acc b) { return static_cast<acc>(Op()(a, b)); }
  static __device__ out_t store(acc v) { return reduce_store<out_t>(v); }
};

template <typename Op, typename acc>
struct Combine {
  __device__ acc operator()(acc a, acc b) const { return static_cast<acc>(Op()(a, b)); }
};

// Shared scratch for group_combine: one accumulator per warp of a kThreads block.
template <typename acc>
struct WarpScratch {
  __align__(8) unsigned char raw[(kThreads / kWarpSize) * sizeof(acc)];
  __device__ acc* get() { return reinterpret_cast<acc*>(raw); }
};

template <typename Op, typename in_t, typename acc, typename out_t>
__global__ void __launch_bounds__(kThreads)
    reduce_thread_kernel(ReduceLayout L, const in_t* in, out_t* out) {
  using Rd = Reducer<Op, in_t, acc, out_t>;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < L.K;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t ib, ob;
    kept_offsets(L, k, ib, ob);
    acc v = Rd::identity();
    for (int64_t r = 0; r < L.R; ++r) v = Rd::combine(v, Rd::load(in[ib + reduced_offset(L, r)]));
    out[ob] = Rd::store(v);
  }
}

constexpr int kColumnRowsInFlight = 8;

// Column: block (bx, by) takes bx adjacent outputs of the kept innermost dim (C wide, input
// stride 1); thread (x, y) reduces rows y, y + by, ... of its split (blockIdx.y), eight loads at
// a time, then the by row groups combine through shared memory in y order. Without splits the
// result is stored; with splits it goes to partial[split * K + k].
template <typename Op, typename in_t, typename acc, typename out_t>
__global__ void __launch_bounds__(kThreads)
    reduce_column_kernel(ReduceLayout L, const in_t* in, out_t* out, acc* partial,
                         int64_t rows_per_split) {
  using Rd = Reducer<Op, in_t, acc, out_t>;
  __shared__ __align__(8) unsigned char raw[kThreads * sizeof(acc)];
  acc* sh = reinterpret_cast<acc*>(raw);
  const int64_t C = L.ksize[L.nk - 1];
  const int64_t tiles = (C + blockDim.x - 1) / blockDim.x;
  const int64_t c = (blockIdx.x % tiles) * blockDim.x + threadIdx.x;
  const int64_t k = (blockIdx.x / tiles) * C + c;
  const int64_t begin = blockIdx.y * rows_per_split;
  const int64_t end = begin + rows_per_split < L.R ? begin + rows_per_split : L.R;
  acc v = Rd::identity();
  int64_t ib = 0, ob = 0;
  if (c < C) {
    kept_offsets(L, k, ib, ob);
    const in_t* x = in + ib;
    const int64_t step = blockDim.y;
    int64_t r = begin + threadIdx.y;
    for (; r + (kColumnRowsInFlight - 1) * step < end; r += kColumnRowsInFlight * step) {
      in_t xs[kColumnRowsInFlight];  // all loads first: they are independent
#pragma unroll
      for (int u = 0; u < kColumnRowsInFlight; ++u) xs[u] = x[reduced_offset(L, r + u * step)];
#pragma unroll
      for (int u = 0; u < kColumnRowsInFlight; ++u) v = Rd::combine(v, Rd::load(xs[u]));
    }
    for (; r < end; r += step) v = Rd::combine(v, Rd::load(x[reduced_offset(L, r)]));
  }
  sh[threadIdx.y * blockDim.x + threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.y == 0 && c < C) {
    for (unsigned y = 1; y < blockDim.y; ++y) v = Rd::combine(v, sh[y * blockDim.x + threadIdx.x]);
    if (gridDim.y == 1) {
      out[ob] = Rd::store(v);
    } else {
      partial[blockIdx.y * L.K + k] = v;
    }
  }
}

// Combines the Column path's partials of each output, split 0 first (reads are coalesced: the
// threads take adjacent outputs).
template <typename Op, typename acc, typename out_t>
__global__ void __launch_bounds__(kThreads)
    reduce_column_combine_kernel(ReduceLayout L, const acc* partial, int64_t splits, out_t* out) {
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < L.K;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    acc v = partial[k];
    for (int64_t s = 1; s < splits; ++s) v = static_cast<acc>(Op()(v, partial[s * L.K + k]));
    int64_t ib, ob;
    kept_offsets(L, k, ib, ob);
    out[ob] = reduce_store<out_t>(v);
  }
}

// Row: output k's R elements are contiguous. Block (bx, by) reduces by rows with bx threads
// each; with splits, the row's threads are those of all gridDim.y blocks. Elements before the
// row's first 16-byte boundary and after its last whole vector are read one by one; the vectors
// in between go four at a time into four accumulators, combined in a fixed order at the end.
template <typename Op, typename in_t, typename acc, typename out_t>
__global__ void __launch_bounds__(kThreads)
    reduce_row_kernel(ReduceLayout L, const in_t* in, out_t* out, acc* partial) {
  using Rd = Reducer<Op, in_t, acc, out_t>;
  constexpr int N = kPackSize<in_t>;
  __shared__ WarpScratch<acc> scratch;
  const int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  const int64_t R = L.R;
  acc v = Rd::identity();
  int64_t ob = 0;
  if (k < L.K) {
    int64_t ib;
    kept_offsets(L, k, ib, ob);
    const in_t* x = in + ib;
    const int64_t t = static_cast<int64_t>(blockIdx.y) * blockDim.x + threadIdx.x;
    const int64_t stride = static_cast<int64_t>(gridDim.y) * blockDim.x;
    const int64_t misaligned = static_cast<int64_t>(reinterpret_cast<uintptr_t>(x) % 16) /
                               static_cast<int64_t>(sizeof(in_t));
    const int64_t head = misaligned == 0 ? 0 : (N - misaligned < R ? N - misaligned : R);
    const int64_t vectors = (R - head) / N;
    const auto* xv = reinterpret_cast<const Pack<in_t>*>(x + head);
    acc a[4] = {v, v, v, v};
    int64_t i = t;
    for (; i + 3 * stride < vectors; i += 4 * stride) {
      Pack<in_t> p[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) p[u] = xv[i + u * stride];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
#pragma unroll
        for (int e = 0; e < N; ++e) a[u] = Rd::combine(a[u], Rd::load(p[u].v[e]));
      }
    }
    for (; i < vectors; i += stride) {
      const Pack<in_t> p = xv[i];
#pragma unroll
      for (int e = 0; e < N; ++e) a[0] = Rd::combine(a[0], Rd::load(p.v[e]));
    }
    v = Rd::combine(Rd::combine(a[0], a[1]), Rd::combine(a[2], a[3]));
    for (int64_t j = t; j < head; j += stride) v = Rd::combine(v, Rd::load(x[j]));
    for (int64_t j = head + vectors * N + t; j < R; j += stride) {
      v = Rd::combine(v, Rd::load(x[j]));
    }
  }
  v = group_combine(v, scratch.get(), Combine<Op, acc>());
  if (threadIdx.x == 0 && k < L.K) {
    if (gridDim.y == 1) {
      out[ob] = Rd::store(v);
    } else {
      partial[k * gridDim.y + blockIdx.y] = v;
    }
  }
}

// Strided: block k reduces output k (threads stride over its elements).
template <typename Op, typename in_t, typename acc, typename out_t>
__global__ void __launch_bounds__(kThreads)
    reduce_block_kernel(ReduceLayout L, const in_t* in, out_t* out) {
  using Rd = Reducer<Op, in_t, acc, out_t>;
  __shared__ WarpScratch<acc> scratch;
  for (int64_t k = blockIdx.x; k < L.K; k += gridDim.x) {
    int64_t ib, ob;
    kept_offsets(L, k, ib, ob);
    acc v = Rd::identity();
    for (int64_t r = threadIdx.x; r < L.R; r += blockDim.x) {
      v = Rd::combine(v, Rd::load(in[ib + reduced_offset(L, r)]));
    }
    v = group_combine(v, scratch.get(), Combine<Op, acc>());
    if (threadIdx.x == 0) out[ob] = Rd::store(v);
  }
}

// Strided with splits: block (k, c) reduces chunk c of output k's elements into
// partial[k * splits + c].
template <typename Op, typename in_t, typename acc>
__global__ void __launch_bounds__(kThreads)
    reduce_partial_kernel(ReduceLayout L, const in_t* in, acc* partial, int64_t splits,
                          int64_t chunk) {
  using Rd = Reducer<Op, in_t, acc, acc>;
  __shared__ WarpScratch<acc> scratch;
  const int64_t k = blockIdx.x / splits, c = blockIdx.x % splits;
  int64_t ib, ob;
  kept_offsets(L, k, ib, ob);
  const int64_t end = (c + 1) * chunk < L.R ? (c + 1) * chunk : L.R;
  acc v = Rd::identity();
  for (int64_t r = c * chunk + threadIdx.x; r < end; r += blockDim.x) {
    v = Rd::combine(v, Rd::load(in[ib + reduced_offset(L, r)]));
  }
  v = group_combine(v, scratch.get(), Combine<Op, acc>());
  if (threadIdx.x == 0) partial[blockIdx.x] = v;
}

// Combines partial[k * splits + c] over c for output k (block k), in thread order then warp order.
template <typename Op, typename acc, typename out_t>
__global__ void __launch_bounds__(kThreads)
    reduce_combine_kernel(ReduceLayout L, const acc* partial, int64_t splits, out_t* out) {
  __shared__ WarpScratch<acc> scratch;
  const int64_t k = blockIdx.x;
  int64_t ib, ob;
  kept_offsets(L, k, ib, ob);
  acc v = Op::template identity<acc>();
  for (int64_t c = threadIdx.x; c < splits; c += blockDim.x) {
    v = static_cast<acc>(Op()(v, partial[k * splits + c]));
  }
  v = group_combine(v, scratch.get(), Combine<Op, acc>());
  if (threadIdx.x == 0) out[ob] = reduce_store<out_t>(v);
}

// The device's SM count, asked once per device.
int sm_count(int device) {
  static std::array<std::atomic<int>, 64> cached{};
  if (device < 0 || device >= static_cast<int>(cached.size())) return 1;
  int n = cached[device].load(std::memory_order_relaxed);
  if (n == 0) {
    cudaDeviceProp p{};
    EMBER_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    n = std::max(1, p.multiProcessorCount);
    cached[device].store(n, std::memory_order_relaxed);
  }
  return n;
}

template <typename Op, typename in_t, typename acc, typename out_t>
void reduce_kernel(const Tensor& out, const Tensor& in) {
  const ReduceLayout L = make_reduce_layout(out, in);
  if (L.K == 0) return;
  const int device = out.device().index();
  DeviceGuard guard(device);
  const ReducePlan plan = plan_reduction(L, sm_count(device));
  cudaStream_t stream = detail::current_cuda_stream(device);
  const auto* ip = static_cast<const in_t*>(in.data_ptr());
  auto* op = static_cast<out_t*>(out.data_ptr());
  const auto grid_x = static_cast<unsigned>(plan.grid_x);
  const auto splits = static_cast<unsigned>(plan.splits);
  const dim3 block(static_cast<unsigned>(plan.block_x), static_cast<unsigned>(plan.block_y));
  Tensor partial;  // each split's value, combined by a second kernel
  acc* pp = nullptr;
  if (plan.splits > 1) {
    partial =
        make_empty({L.K * plan.splits * static_cast<int64_t>(sizeof(acc))}, kByte, out.device());
    pp = static_cast<acc*>(partial.data_ptr());
  }
  switch (plan.path) {
    case ReducePath::None:
      return;
    case ReducePath::Thread:
      launch_kernel(EMBER_KERNEL(reduce_thread_kernel<Op, in_t, acc, out_t>),
                    {grid_x, block, 0, stream}, L, ip, op);
      break;
    case ReducePath::Column:
      launch_kernel(EMBER_KERNEL(reduce_column_kernel<Op, in_t, acc, out_t>),
                    {dim3(grid_x, splits), block, 0, stream}, L, ip, op, pp, plan.rows_per_split);
      if (plan.splits > 1) {
        EMBER_CUDA_CHECK(cudaGetLastError());
        launch_kernel(EMBER_KERNEL(reduce_column_combine_kernel<Op, acc, out_t>),
                      {grid_for(L.K), kThreads, 0, stream}, L, static_cast<const acc*>(pp),
                      plan.splits, op);
      }
      break;
    case ReducePath::Row:
      launch_kernel(EMBER_KERNEL(reduce_row_kernel<Op, in_t, acc, out_t>),
                    {dim3(grid_x, splits), block, 0, stream}, L, ip, op, pp);
      if (plan.splits > 1) {
        EMBER_CUDA_CHECK(cudaGetLastError());
        launch_kernel(EMBER_KERNEL(reduce_combine_kernel<Op, acc, out_t>),
                      {static_cast<unsigned>(L.K), kThreads, 0, stream}, L,
                      static_cast<const acc*>(pp), plan.splits, op);
      }
      break;
    case ReducePath::Strided:
      if (plan.splits > 1) {
        launch_kernel(EMBER_KERNEL(reduce_partial_kernel<Op, in_t, acc>),
                      {grid_x, block, 0, stream}, L, ip, pp, plan.splits, plan.chunk);
        EMBER_CUDA_CHECK(cudaGetLastError());
        launch_kernel(EMBER_KERNEL(reduce_combine_kernel<Op, acc, out_t>),
                      {static_cast<unsigned>(L.K), kThreads, 0, stream}, L,
                      static_cast<const acc*>(pp), plan.splits, op);
      } else {
        launch_kernel(EMBER_KERNEL(reduce_block_kernel<Op, in_t, acc, out_t>),
                      {grid_x, block, 0, stream}, L, ip, op);
      }
      break;
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

struct ReduceKernel {
  template <typename Op, typename in_t, typename acc, typename out_t>
  static void run(const Tensor& out, const Tensor& in) {
    reduce_kernel<Op, in_t, acc, out_t>(out, in);
  }
};

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
  for (int64_t k = blockIdx.x; k < K; k += gridDim.x) {
    const in_t* x = in + k * D;
    ArgCandidate<A> best{A(), -1};
    for (int64_t d = begin + threadIdx.x; d < end; d += blockDim.x) {
      best = pick(best, ArgCandidate<A>{static_cast<A>(x[d]), d});
    }
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
    launch_kernel(EMBER_KERNEL(arg_rows_combine_kernel<in_t>), {grid_for(K), kThreads, 0, stream},
                  ip, K, D, static_cast<const ArgCandidate<A>*>(pp), plan.splits, pick, vp, xp);
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

void CudaBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& in) {
  check_operands("reduce", {&out, &in});
  EMBER_DISPATCH_ALL(in.dtype(), "reduce",
                     [&] { reduce_dispatch_op<ReduceKernel, scalar_t>(op, out, in); });
}

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
    const ArgRowsPlan plan = plan_arg_rows(K, D, sm_count(device));
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
