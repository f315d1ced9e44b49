// Softmax and log_softmax on CUDA, forward and backward; plan_softmax (cuda/softmax_plan.h) picks
// the path.
//   Rows (softmax over the last dim): block_x threads per row (a warp for short rows, the block
//     for long ones). One pass reads the row (16-byte loads when rows are aligned), keeps it in
//     shared memory when it fits, and computes the maximum and the sum of exp(x - max) together
//     ("online": the sum is rescaled when the maximum grows); partial results combine by warp
//     shuffles, then across warps in shared memory. A second pass writes the output from the
//     cached row (or reads the row again when it did not fit). The backward reads grad_out and
//     the output once into the cache the same way.
//   Strided (another dim): one thread per row, rows `inner` apart, so adjacent threads read
//     adjacent elements; the same online pass, then the write pass.
// The math is kernel_math/softmax_row.h's (the CPU's): y = exp(x - max) / sum, log: (x - max) -
// log(sum), and a NaN anywhere in a row makes the row NaN; only the summation order differs.
#include <math.h>

#include <cstdint>
#include <initializer_list>

#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "cuda/softmax_plan.h"
#include "cuda/warp_reduce.cuh"
#include "kernel_math/softmax_row.h"

namespace ember::cuda {
namespace {

static_assert(kSoftmaxThreads == kThreads, "softmax_plan.h plans blocks of kThreads");

// 16-byte loads each thread issues before using the first (memory-level parallelism).
constexpr int kPacksInFlight = 4;

// The running maximum of a row's elements and the sum of exp(x - m) over them.
template <typename Acc>
struct MaxSum {
  Acc m, s;
};

template <typename Acc>
__device__ __forceinline__ MaxSum<Acc> max_sum_identity() {
  return {Acc(-INFINITY), Acc(0)};
}

// max that keeps a NaN from either side.
template <typename Acc>
__device__ __forceinline__ Acc nan_max(Acc a, Acc b) {
  return (a != a || a > b) ? a : b;
}

// The factor that moves a sum taken relative to `from` to one relative to `to` (to >= from).
template <typename Acc>
__device__ __forceinline__ Acc rescale(Acc from, Acc to) {
  return from == to ? Acc(1) : ::exp(from - to);
}

// exp(x - m); while the maximum is -inf every element so far is -inf and weighs nothing (a row of
// -inf only still ends NaN, as on the CPU: the write pass computes exp(-inf - (-inf))).
template <typename Acc>
__device__ __forceinline__ Acc exp_shifted(Acc x, Acc m) {
  return m == Acc(-INFINITY) ? Acc(0) : ::exp(x - m);
}

template <typename Acc>
struct MergeMaxSum {
  __device__ MaxSum<Acc> operator()(MaxSum<Acc> a, MaxSum<Acc> b) const {
    const Acc m = nan_max(a.m, b.m);
    return {m, a.s * rescale(a.m, m) + b.s * rescale(b.m, m)};
  }
};

// Found by warp_combine through argument-dependent lookup.
template <typename Acc>
__device__ __forceinline__ MaxSum<Acc> shfl_down(MaxSum<Acc> v, unsigned delta) {
  return {cuda::shfl_down(v.m, delta), cuda::shfl_down(v.s, delta)};
}

template <typename Acc>
struct SumOf {
  __device__ Acc operator()(Acc a, Acc b) const { return a + b; }
};

// Adds n elements to a running (max, sum), rescaling the sum once for all of them.
template <typename Acc, typename T, int n>
__device__ __forceinline__ MaxSum<Acc> absorb(MaxSum<Acc> ms, const T (&x)[n]) {
  Acc m = ms.m;
#pragma unroll
  for (int e = 0; e < n; ++e) m = nan_max(m, static_cast<Acc>(x[e]));
  Acc s = ms.s * rescale(ms.m, m);
#pragma unroll
  for (int e = 0; e < n; ++e) s += exp_shifted(static_cast<Acc>(x[e]), m);
  return {m, s};
}

template <typename T, typename Acc>
__device__ __forceinline__ T softmax_value(T x, Acc m, Acc sum_or_log_sum, bool log_space) {
  // log: (x - max) - log(sum), in this order (see softmax_row.h)
  return log_space ? static_cast<T>((static_cast<Acc>(x) - m) - sum_or_log_sum)
                   : static_cast<T>(::exp(static_cast<Acc>(x) - m) / sum_or_log_sum);
}

// Rows path, forward. Block (bx, by): row blockIdx.x * by + y by the bx threads of group y.
// `vectorized`: D is a multiple of the pack size and in/out are 16-byte aligned, so every row is.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    softmax_rows_kernel(T* out, const T* in, int64_t rows, int64_t D, bool log_space, bool cached,
                        bool vectorized) {
  using Acc = acc_t<T>;
  using P = Pack<T>;
  constexpr int N = kPackSize<T>;
  __shared__ MaxSum<Acc> scratch[kThreads / kWarpSize];
  __shared__ MaxSum<Acc> row_stats[kThreads / kWarpSize];
  EMBER_DYNAMIC_SHARED(double, shared_raw);
  T* cache = cached ? reinterpret_cast<T*>(shared_raw) + threadIdx.y * D : nullptr;
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.y; first < rows;
       first += static_cast<int64_t>(gridDim.x) * blockDim.y) {
    const int64_t row = first + threadIdx.y;
    const bool active = row < rows;
    MaxSum<Acc> ms = max_sum_identity<Acc>();
    if (active) {
      const T* x = in + row * D;
      if (vectorized) {
        const auto* xv = reinterpret_cast<const P*>(x);
        auto* cv = reinterpret_cast<P*>(cache);
        const int64_t n = D / N, step = blockDim.x;
        int64_t i = threadIdx.x;
        for (; i + (kPacksInFlight - 1) * step < n; i += kPacksInFlight * step) {
          P p[kPacksInFlight];  // all loads first: they are independent
#pragma unroll
          for (int u = 0; u < kPacksInFlight; ++u) p[u] = xv[i + u * step];
#pragma unroll
          for (int u = 0; u < kPacksInFlight; ++u) {
            if (cached) cv[i + u * step] = p[u];
            ms = absorb(ms, p[u].v);
          }
        }
        for (; i < n; i += step) {
          const P p = xv[i];
          if (cached) cv[i] = p;
          ms = absorb(ms, p.v);
        }
      } else {
        for (int64_t i = threadIdx.x; i < D; i += blockDim.x) {
          const T v[1] = {x[i]};
          if (cached) cache[i] = v[0];
          ms = absorb(ms, v);
        }
      }
    }
    ms = group_combine(ms, scratch, MergeMaxSum<Acc>());
    if (threadIdx.x == 0) row_stats[threadIdx.y] = ms;
    __syncthreads();
    ms = row_stats[threadIdx.y];
    if (active) {
      const T* src = cached ? cache : in + row * D;
      T* y = out + row * D;
      const Acc m = ms.m, scale = log_space ? ::log(ms.s) : ms.s;
      if (vectorized) {
        for (int64_t i = threadIdx.x; i < D / N; i += blockDim.x) {
          P p = reinterpret_cast<const P*>(src)[i];
#pragma unroll
          for (int e = 0; e < N; ++e) p.v[e] = softmax_value(p.v[e], m, scale, log_space);
          reinterpret_cast<P*>(y)[i] = p;
        }
      } else {
        for (int64_t i = threadIdx.x; i < D; i += blockDim.x) {
          y[i] = softmax_value(src[i], m, scale, log_space);
        }
      }
    }
    __syncthreads();  // the cache and row_stats are reused by the next rows
  }
}

// Rows path, backward: softmax dx = y * (dy - sum(dy * y)); log_softmax dx = dy - exp(y) *
// sum(dy). The cache holds a row's dy, then its y.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    softmax_backward_rows_kernel(T* grad_in, const T* grad_out, const T* out, int64_t rows,
                                 int64_t D, bool log_space, bool cached, bool vectorized) {
  using Acc = acc_t<T>;
  using P = Pack<T>;
  constexpr int N = kPackSize<T>;
  __shared__ Acc scratch[kThreads / kWarpSize];
  __shared__ Acc row_dot[kThreads / kWarpSize];
  EMBER_DYNAMIC_SHARED(double, shared_raw);
  T* cache_g = cached ? reinterpret_cast<T*>(shared_raw) + threadIdx.y * 2 * D : nullptr;
  T* cache_y = cached ? cache_g + D : nullptr;
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.y; first < rows;
       first += static_cast<int64_t>(gridDim.x) * blockDim.y) {
    const int64_t row = first + threadIdx.y;
    const bool active = row < rows;
    Acc dot = Acc(0);
    if (active) {
      const T* g = grad_out + row * D;
      const T* y = out + row * D;
      if (vectorized) {
        const auto* gv = reinterpret_cast<const P*>(g);
        const auto* yv = reinterpret_cast<const P*>(y);
        const int64_t n = D / N, step = blockDim.x;
        for (int64_t i0 = threadIdx.x; i0 < n; i0 += kPacksInFlight * step) {
          P pg[kPacksInFlight], py[kPacksInFlight];  // all loads first: they are independent
#pragma unroll
          for (int u = 0; u < kPacksInFlight; ++u) {
            if (i0 + u * step < n) {
              pg[u] = gv[i0 + u * step];
              py[u] = yv[i0 + u * step];
            }
          }
#pragma unroll
          for (int u = 0; u < kPacksInFlight; ++u) {
            const int64_t i = i0 + u * step;
            if (i >= n) break;
            if (cached) {
              reinterpret_cast<P*>(cache_g)[i] = pg[u];
              reinterpret_cast<P*>(cache_y)[i] = py[u];
            }
#pragma unroll
            for (int e = 0; e < N; ++e) {
              const Acc gi = static_cast<Acc>(pg[u].v[e]);
              dot += log_space ? gi : gi * static_cast<Acc>(py[u].v[e]);
            }
          }
        }
      } else {
        for (int64_t i = threadIdx.x; i < D; i += blockDim.x) {
          const T gt = g[i], yt = y[i];
          if (cached) {
            cache_g[i] = gt;
            cache_y[i] = yt;
          }
          const Acc gi = static_cast<Acc>(gt);
          dot += log_space ? gi : gi * static_cast<Acc>(yt);
        }
      }
    }
    dot = group_combine(dot, scratch, SumOf<Acc>());
    if (threadIdx.x == 0) row_dot[threadIdx.y] = dot;
    __syncthreads();
    dot = row_dot[threadIdx.y];
    if (active) {
      const T* g = cached ? cache_g : grad_out + row * D;
      const T* y = cached ? cache_y : out + row * D;
      T* gx = grad_in + row * D;
      auto grad = [&](T gt, T yt) {
        const Acc gi = static_cast<Acc>(gt), yi = static_cast<Acc>(yt);
        return static_cast<T>(log_space ? gi - ::exp(yi) * dot : yi * (gi - dot));
      };
      if (vectorized) {
        for (int64_t i = threadIdx.x; i < D / N; i += blockDim.x) {
          const P pg = reinterpret_cast<const P*>(g)[i], py = reinterpret_cast<const P*>(y)[i];
          P r;
#pragma unroll
          for (int e = 0; e < N; ++e) r.v[e] = grad(pg.v[e], py.v[e]);
          reinterpret_cast<P*>(gx)[i] = r;
        }
      } else {
        for (int64_t i = threadIdx.x; i < D; i += blockDim.x) gx[i] = grad(g[i], y[i]);
      }
    }
    __syncthreads();  // the cache and row_dot are reused by the next rows
  }
}

// Strided path: row r of `rows` starts at (r / inner) * D * inner + r % inner, elements `inner`
// apart. One online pass for the maximum and the sum, one pass to write.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    softmax_strided_kernel(T* out, const T* in, int64_t rows, int64_t D, int64_t inner,
                           bool log_space) {
  using Acc = acc_t<T>;
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows;
       r += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = (r / inner) * D * inner + r % inner;
    const T* x = in + base;
    MaxSum<Acc> ms = max_sum_identity<Acc>();
    for (int64_t i = 0; i < D; ++i) {
      const T v[1] = {x[i * inner]};
      ms = absorb(ms, v);
    }
    const Acc scale = log_space ? ::log(ms.s) : ms.s;
    for (int64_t i = 0; i < D; ++i) {
      out[base + i * inner] = softmax_value(x[i * inner], ms.m, scale, log_space);
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    softmax_backward_strided_kernel(T* grad_in, const T* grad_out, const T* out, int64_t rows,
                                    int64_t D, int64_t inner, bool log_space) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows;
       r += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = (r / inner) * D * inner + r % inner;
    softmax_backward_row<T, acc_t<T>>(grad_in + base, grad_out + base, out + base, D, inner,
                                      log_space);
  }
}

// True when every row of D elements at each pointer starts on a 16-byte boundary.
template <typename T>
bool rows_vectorizable(int64_t D, std::initializer_list<const void*> ptrs) {
  if (D % kPackSize<T> != 0) return false;
  for (const void* p : ptrs) {
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0) return false;
  }
  return true;
}

}  // namespace

void CudaBackend::softmax(const Tensor& out, const Tensor& in, int64_t outer, int64_t D,
                          int64_t inner, bool log_space) {
  const int64_t rows = outer * inner;
  if (rows == 0 || D == 0) return;
  check_operands(log_space ? "log_softmax" : "softmax", {&out, &in});
  DeviceGuard guard(out.device().index());  // launch on the tensors' device, not the current one
  cudaStream_t stream = detail::stream_of(out);
  EMBER_DISPATCH_FLOATING(in.dtype(), log_space ? "log_softmax" : "softmax", [&] {
    const SoftmaxPlan plan = plan_softmax(rows, D, inner, sizeof(scalar_t), false);
    auto* y = out.data_ptr<scalar_t>();
    const auto* x = in.data_ptr<scalar_t>();
    const auto grid = static_cast<unsigned>(plan.grid_x);
    if (plan.path == SoftmaxPath::Rows) {
      const dim3 block(static_cast<unsigned>(plan.block_x), static_cast<unsigned>(plan.block_y));
      launch_kernel(EMBER_KERNEL(softmax_rows_kernel<scalar_t>),
                    {grid, block, plan.shared_bytes, stream}, y, x, rows, D, log_space, plan.cached,
                    rows_vectorizable<scalar_t>(D, {x, y}));
    } else {
      launch_kernel(EMBER_KERNEL(softmax_strided_kernel<scalar_t>), {grid, kThreads, 0, stream}, y,
                    x, rows, D, inner, log_space);
    }
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void CudaBackend::softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out,
                                   int64_t outer, int64_t D, int64_t inner, bool log_space) {
  const int64_t rows = outer * inner;
  if (rows == 0 || D == 0) return;
  check_operands("softmax_backward", {&grad_in, &grad_out, &out});
  DeviceGuard guard(grad_in.device().index());
  cudaStream_t stream = detail::stream_of(grad_in);
  EMBER_DISPATCH_FLOATING(out.dtype(), "softmax_backward", [&] {
    const SoftmaxPlan plan = plan_softmax(rows, D, inner, sizeof(scalar_t), true);
    auto* gx = grad_in.data_ptr<scalar_t>();
    const auto* gy = grad_out.data_ptr<scalar_t>();
    const auto* y = out.data_ptr<scalar_t>();
    const auto grid = static_cast<unsigned>(plan.grid_x);
    if (plan.path == SoftmaxPath::Rows) {
      const dim3 block(static_cast<unsigned>(plan.block_x), static_cast<unsigned>(plan.block_y));
      launch_kernel(EMBER_KERNEL(softmax_backward_rows_kernel<scalar_t>),
                    {grid, block, plan.shared_bytes, stream}, gx, gy, y, rows, D, log_space,
                    plan.cached, rows_vectorizable<scalar_t>(D, {gx, gy, y}));
    } else {
      launch_kernel(EMBER_KERNEL(softmax_backward_strided_kernel<scalar_t>),
                    {grid, kThreads, 0, stream}, gx, gy, y, rows, D, inner, log_space);
    }
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ember::cuda
