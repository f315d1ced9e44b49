// Reduction family on CUDA: Sum/Prod/Max/Min/Any/All over any set of dims, and arg max/min.
// Kept dims and reduced dims are coalesced on the host by core/reduce_plan.h (shared with the CPU).
// Each output is reduced by one block (threads stride over the reduced elements, then a
// shared-memory tree) when the reduction is long, or by one thread when it is short.
#include <algorithm>

#include "core/functors.h"
#include "core/reduce_plan.h"
#include "core/tensor_factory.h"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"

namespace ember::cuda {
namespace {

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
  static __device__ acc load(in_t x) { return reduce_load<Op, acc>(x); }
  static __device__ acc combine(acc a, acc b) { return static_cast<acc>(Op()(a, b)); }
  static __device__ out_t store(acc v) { return reduce_store<out_t>(v); }
};

// Combines the block's per-thread values `v` by a shared-memory tree; every thread gets the
// result. `sh` holds blockDim.x values.
template <typename Op, typename acc>
__device__ __forceinline__ acc block_combine(acc* sh, acc v) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sh[threadIdx.x] = static_cast<acc>(Op()(sh[threadIdx.x], sh[threadIdx.x + s]));
    __syncthreads();
  }
  const acc result = sh[0];
  __syncthreads();  // sh may be written again right after
  return result;
}

template <typename Op, typename in_t, typename acc, typename out_t>
__global__ void __launch_bounds__(kThreads)
    reduce_block_kernel(ReduceLayout L, const in_t* in, out_t* out) {
  using Rd = Reducer<Op, in_t, acc, out_t>;
  __shared__ __align__(8) unsigned char raw[kThreads * sizeof(acc)];
  acc* sh = reinterpret_cast<acc*>(raw);
  for (int64_t k = blockIdx.x; k < L.K; k += gridDim.x) {
    int64_t ib, ob;
    kept_offsets(L, k, ib, ob);
    acc v = Op::template identity<acc>();
    for (int64_t r = threadIdx.x; r < L.R; r += blockDim.x) {
      v = Rd::combine(v, Rd::load(in[ib + reduced_offset(L, r)]));
    }
    v = block_combine<Op>(sh, v);
    if (threadIdx.x == 0) out[ob] = Rd::store(v);
  }
}

template <typename Op, typename in_t, typename acc, typename out_t>
__global__ void __launch_bounds__(kThreads)
    reduce_thread_kernel(ReduceLayout L, const in_t* in, out_t* out) {
  using Rd = Reducer<Op, in_t, acc, out_t>;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < L.K;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t ib, ob;
    kept_offsets(L, k, ib, ob);
    acc v = Op::template identity<acc>();
    for (int64_t r = 0; r < L.R; ++r) v = Rd::combine(v, Rd::load(in[ib + reduced_offset(L, r)]));
    out[ob] = Rd::store(v);
  }
}

// Long reductions into few outputs (a full sum) use the whole GPU: block (k, c) reduces chunk c of
// output k's elements into partial[k * splits + c]; a second kernel combines each output's
// partials in a fixed order, so the result does not depend on scheduling.
template <typename Op, typename in_t, typename acc>
__global__ void __launch_bounds__(kThreads)
    reduce_partial_kernel(ReduceLayout L, const in_t* in, acc* partial, int64_t splits,
                          int64_t chunk) {
  using Rd = Reducer<Op, in_t, acc, acc>;
  __shared__ __align__(8) unsigned char raw[kThreads * sizeof(acc)];
  acc* sh = reinterpret_cast<acc*>(raw);
  const int64_t k = blockIdx.x / splits, c = blockIdx.x % splits;
  int64_t ib, ob;
  kept_offsets(L, k, ib, ob);
  const int64_t end = (c + 1) * chunk < L.R ? (c + 1) * chunk : L.R;
  acc v = Op::template identity<acc>();
  for (int64_t r = c * chunk + threadIdx.x; r < end; r += blockDim.x) {
    v = Rd::combine(v, Rd::load(in[ib + reduced_offset(L, r)]));
  }
  v = block_combine<Op>(sh, v);
  if (threadIdx.x == 0) partial[blockIdx.x] = v;
}

template <typename Op, typename acc, typename out_t>
__global__ void __launch_bounds__(kThreads)
    reduce_combine_kernel(ReduceLayout L, const acc* partial, int64_t splits, out_t* out) {
  __shared__ __align__(8) unsigned char raw[kThreads * sizeof(acc)];
  acc* sh = reinterpret_cast<acc*>(raw);
  const int64_t k = blockIdx.x;
  int64_t ib, ob;
  kept_offsets(L, k, ib, ob);
  acc v = Op::template identity<acc>();
  for (int64_t c = threadIdx.x; c < splits; c += blockDim.x) {
    v = static_cast<acc>(Op()(v, partial[k * splits + c]));
  }
  v = block_combine<Op>(sh, v);
  if (threadIdx.x == 0) out[ob] = reduce_store<out_t>(v);
}

// Elements per block in a split reduction, and the most blocks one launch uses for it.
constexpr int64_t kSplitChunk = int64_t(kThreads) * 64;
constexpr int64_t kSplitMaxBlocks = 2048;

template <typename Op, typename in_t, typename acc, typename out_t>
void reduce_kernel(const Tensor& out, const Tensor& in) {
  ReduceLayout L = make_reduce_layout(out, in);
  if (L.K == 0) return;
  const int device = out.device().index();
  DeviceGuard guard(device);
  cudaStream_t stream = detail::current_cuda_stream(device);
  const auto* ip = static_cast<const in_t*>(in.data_ptr());
  auto* op = static_cast<out_t*>(out.data_ptr());
  const int64_t splits = std::min<int64_t>((L.R + kSplitChunk - 1) / kSplitChunk,
                                           kSplitMaxBlocks / std::max<int64_t>(L.K, 1));
  if (L.R < 64 || (L.K >= 4096 && L.R < 1024)) {
    launch_kernel(EMBER_KERNEL(reduce_thread_kernel<Op, in_t, acc, out_t>),
                  {grid_for(L.K), kThreads, 0, stream}, L, ip, op);
  } else if (splits >= 2) {
    // Few outputs, long rows: split each row across blocks, then combine the partials.
    const int64_t chunk = (L.R + splits - 1) / splits;
    Tensor partial =
        make_empty({L.K * splits * static_cast<int64_t>(sizeof(acc))}, kByte, out.device());
    auto* pp = static_cast<acc*>(partial.data_ptr());
    launch_kernel(EMBER_KERNEL(reduce_partial_kernel<Op, in_t, acc>),
                  {static_cast<unsigned>(L.K * splits), kThreads, 0, stream}, L, ip, pp, splits,
                  chunk);
    EMBER_CUDA_CHECK(cudaGetLastError());
    launch_kernel(EMBER_KERNEL(reduce_combine_kernel<Op, acc, out_t>),
                  {static_cast<unsigned>(L.K), kThreads, 0, stream}, L, static_cast<const acc*>(pp),
                  splits, op);
  } else {
    const auto blocks = static_cast<unsigned>(std::min<int64_t>(L.K, 1 << 20));
    launch_kernel(EMBER_KERNEL(reduce_block_kernel<Op, in_t, acc, out_t>),
                  {blocks, kThreads, 0, stream}, L, ip, op);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

struct ReduceKernel {
  template <typename Op, typename in_t, typename acc, typename out_t>
  static void run(const Tensor& out, const Tensor& in) {
    reduce_kernel<Op, in_t, acc, out_t>(out, in);
  }
};

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
  DimVector sizes(in.sizes());
  sizes[dim] = 1;
  Tensor in1 = make_view(in, sizes, in.strides(), in.storage_offset());
  EMBER_DISPATCH_ALL(in.dtype(), "arg_reduce", [&] {
    const int64_t sd = in.stride(dim) * static_cast<int64_t>(sizeof(scalar_t));
    launch_elementwise<3>({&values, &indices, &in1}, ArgFn<scalar_t>{is_max, in.size(dim), sd});
  });
}

}  // namespace ember::cuda
