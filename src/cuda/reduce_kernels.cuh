#pragma once
// The reduction kernels (Sum/Prod/Max/Min/Any/All over any set of dims), instantiated per dtype
// group in reduce_<group>.cu so that no single nvcc compile dominates the build; reduce.cu
// dispatches to them through reduce_ops.h.
// Kept dims and reduced dims are coalesced on the host by kernel_math/reduce_plan.h (shared with
// the CPU); plan_reduction (cuda/reduce_paths.h) picks one of the kernels below and its launch
// shape:
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

#include "core/tensor_factory.h"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "cuda/reduce_ops.h"
#include "cuda/reduce_paths.h"
#include "cuda/sm_count.h"
#include "cuda/warp_reduce.cuh"
#include "kernel_math/functors.h"
#include "kernel_math/reduce_plan.h"

namespace ember::cuda::detail {

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

template <typename scalar_t>
void reduce_typed(ReduceOp op, const Tensor& out, const Tensor& in) {
  reduce_dispatch_op<ReduceKernel, scalar_t>(op, out, in);
}

}  // namespace ember::cuda::detail

// Instantiates reduce_typed for one dtype (in its reduce_<group>.cu).
#define EMBER_CUDA_REDUCE_FOR(scalar_t)                        \
  template void ::ember::cuda::detail::reduce_typed<scalar_t>( \
      ::ember::ReduceOp, const ::ember::Tensor&, const ::ember::Tensor&);
