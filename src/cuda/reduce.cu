// Reduction family on CUDA: Sum/Prod/Max/Min/Any/All over any set of dims, and arg max/min.
// Kept dims and reduced dims are coalesced on the host (as on the CPU). Each output is reduced
// by one block (threads stride over the reduced elements, then a shared-memory tree) when the
// reduction is long, or by one thread when it is short.
#include <algorithm>

#include "core/functors.h"
#include "core/tensor_factory.h"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"

namespace ember::cuda {
namespace {

struct ReduceLayout {
  int nk = 0, nr = 0;
  int64_t ksize[kMaxDims], kin[kMaxDims], kout[kMaxDims];  // strides in elements
  int64_t rsize[kMaxDims], rin[kMaxDims];
  int64_t K = 1, R = 1;
};

ReduceLayout make_reduce_layout(const Tensor& out, const Tensor& in) {
  ReduceLayout L;
  const int64_t nd = in.dim();
  EMBER_CHECK(nd <= kMaxDims, ValueError, "reductions support at most ", kMaxDims, " dims");
  EMBER_CHECK(out.dim() == nd, ValueError, "reduce: output rank ", out.dim(),
              " differs from input rank ", nd);
  struct RDim {
    int64_t size, stride;
  };
  RDim red[kMaxDims];
  int nred = 0;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t s = in.size(d);
    if (s == 0) L.R = 0;
    if (s == 1) continue;
    if (out.size(d) == 1) {
      red[nred++] = {s, in.stride(d)};
      continue;
    }
    EMBER_CHECK(out.size(d) == s, ValueError, "reduce: output shape ", out.sizes(),
                " does not match input shape ", in.sizes());
    const int64_t is = in.stride(d), os = out.stride(d);
    if (L.nk > 0 && L.kin[L.nk - 1] == is * s && L.kout[L.nk - 1] == os * s) {
      L.ksize[L.nk - 1] *= s;
      L.kin[L.nk - 1] = is;
      L.kout[L.nk - 1] = os;
    } else {
      L.ksize[L.nk] = s;
      L.kin[L.nk] = is;
      L.kout[L.nk] = os;
      ++L.nk;
    }
  }
  std::stable_sort(red, red + nred,
                   [](const RDim& a, const RDim& b) { return a.stride > b.stride; });
  for (int i = 0; i < nred; ++i) {
    if (L.nr > 0 && L.rin[L.nr - 1] == red[i].stride * red[i].size) {
      L.rsize[L.nr - 1] *= red[i].size;
      L.rin[L.nr - 1] = red[i].stride;
    } else {
      L.rsize[L.nr] = red[i].size;
      L.rin[L.nr] = red[i].stride;
      ++L.nr;
    }
  }
  for (int i = 0; i < L.nk; ++i) L.K *= L.ksize[i];
  if (L.R != 0) {
    for (int i = 0; i < L.nr; ++i) L.R *= L.rsize[i];
  }
  return L;
}

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
  static constexpr bool kLogical = std::is_same_v<Op, AnyReduce> || std::is_same_v<Op, AllReduce>;
  static __device__ acc load(in_t x) {
    if constexpr (kLogical) {
      return static_cast<bool>(static_cast<acc_t<in_t>>(x));
    } else {
      return static_cast<acc>(static_cast<acc_t<in_t>>(x));
    }
  }
  static __device__ acc combine(acc a, acc b) { return static_cast<acc>(Op()(a, b)); }
  static __device__ out_t store(acc v) {
    if constexpr (std::is_same_v<out_t, Half> || std::is_same_v<out_t, BFloat16>) {
      return out_t(static_cast<float>(v));
    } else {
      return static_cast<out_t>(v);
    }
  }
};

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
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) sh[threadIdx.x] = Rd::combine(sh[threadIdx.x], sh[threadIdx.x + s]);
      __syncthreads();
    }
    if (threadIdx.x == 0) out[ob] = Rd::store(sh[0]);
    __syncthreads();
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

template <typename Op, typename in_t, typename acc, typename out_t>
void reduce_kernel(const Tensor& out, const Tensor& in) {
  ReduceLayout L = make_reduce_layout(out, in);
  if (L.K == 0) return;
  const int device = out.device().index();
  DeviceGuard guard(device);
  cudaStream_t stream = detail::current_cuda_stream(device);
  const auto* ip = static_cast<const in_t*>(in.data_ptr());
  auto* op = static_cast<out_t*>(out.data_ptr());
  if (L.R < 64 || (L.K >= 4096 && L.R < 1024)) {
    reduce_thread_kernel<Op, in_t, acc, out_t><<<grid_for(L.K), kThreads, 0, stream>>>(L, ip, op);
  } else {
    const auto blocks = static_cast<unsigned>(std::min<int64_t>(L.K, 1 << 20));
    reduce_block_kernel<Op, in_t, acc, out_t><<<blocks, kThreads, 0, stream>>>(L, ip, op);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <typename Op, typename in_t>
void reduce_dispatch_out(const Tensor& out, const Tensor& in, const char* name) {
  const ScalarType ot = out.dtype(), it = in.dtype();
  constexpr bool logical = std::is_same_v<Op, AnyReduce> || std::is_same_v<Op, AllReduce>;
  constexpr bool widen = std::is_same_v<Op, SumReduce> || std::is_same_v<Op, ProdReduce>;
  if constexpr (logical) {
    if (ot == kBool) return reduce_kernel<Op, in_t, bool, bool>(out, in);
    if (ot == it) return reduce_kernel<Op, in_t, bool, in_t>(out, in);
  } else {
    if constexpr (!(widen && std::is_same_v<in_t, bool>)) {
      if (ot == it) return reduce_kernel<Op, in_t, acc_t<in_t>, in_t>(out, in);
    }
    if constexpr (widen && std::is_integral_v<in_t>) {
      if (ot == kLong) return reduce_kernel<Op, in_t, int64_t, int64_t>(out, in);
    }
  }
  throw TypeError(::ember::detail::str_cat(name, ": cannot reduce dtype ", to_string(it),
                                           " into an output of dtype ", to_string(ot)));
}

template <typename in_t>
void reduce_typed(ReduceOp op, const Tensor& out, const Tensor& in) {
  switch (op) {
    case ReduceOp::Sum:
      return reduce_dispatch_out<SumReduce, in_t>(out, in, "sum");
    case ReduceOp::Prod:
      return reduce_dispatch_out<ProdReduce, in_t>(out, in, "prod");
    case ReduceOp::Max:
      return reduce_dispatch_out<MaxReduce, in_t>(out, in, "max");
    case ReduceOp::Min:
      return reduce_dispatch_out<MinReduce, in_t>(out, in, "min");
    case ReduceOp::Any:
      return reduce_dispatch_out<AnyReduce, in_t>(out, in, "any");
    case ReduceOp::All:
      return reduce_dispatch_out<AllReduce, in_t>(out, in, "all");
    default:
      throw NotImplementedError("unknown reduce op");
  }
}

// values/indices/in1 share in's shape with one element along the scanned dim.
template <typename in_t>
struct ArgFn {
  bool is_max;
  int64_t D, sd;  // length and byte stride of the scanned dim
  __device__ void operator()(char** p, int64_t) const {
    using T = acc_t<in_t>;
    const char* x = p[2];
    T best = static_cast<T>(*reinterpret_cast<const in_t*>(x));
    int64_t bi = 0;
    if (!fn::isnan_(best)) {
      for (int64_t d = 1; d < D; ++d) {
        const T v = static_cast<T>(*reinterpret_cast<const in_t*>(x + d * sd));
        if (fn::isnan_(v)) {  // the first NaN wins, as in PyTorch
          best = v;
          bi = d;
          break;
        }
        if (is_max ? v > best : v < best) {
          best = v;
          bi = d;
        }
      }
    }
    *reinterpret_cast<in_t*>(p[0]) = *reinterpret_cast<const in_t*>(x + bi * sd);
    *reinterpret_cast<int64_t*>(p[1]) = bi;
  }
};

}  // namespace

void CudaBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& in) {
  check_operands("reduce", {&out, &in});
  EMBER_DISPATCH_ALL(in.dtype(), "reduce", [&] { reduce_typed<scalar_t>(op, out, in); });
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
