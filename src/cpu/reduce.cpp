// Reduction family on the CPU: Sum/Prod/Max/Min/Any/All over any set of dims, and arg max/min.
//
// The input's dims are split into kept dims (the output's) and reduced dims, each group
// coalesced. Two paths:
//  - per output element: walk the reduced space as runs along its innermost dim (a contiguous
//    run takes the vectorisable fast path; sums are pairwise, so float32 stays accurate);
//  - columns: when the innermost kept dim is contiguous in input and output and the reduction
//    runs over outer dims (e.g. the bias gradient [B, N] -> [N]), rows are accumulated into a
//    buffer of outputs, which keeps memory access sequential.
// Both parallelise over outputs, or over the reduced space when there are too few outputs.
#include <algorithm>
#include <memory>

#include "core/tensor_factory.h"
#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "cpu/num_threads.h"
#include "kernel_math/dispatch.h"
#include "kernel_math/functors.h"
#include "kernel_math/reduce_plan.h"

namespace ember::cpu {
namespace {

constexpr int kMaxDims = kReduceMaxDims;
constexpr int64_t kTile = 2048;  // outputs per column-path task (buffers stay in L1/L2)

// Odometer over a group of dims, tracking one or two element offsets.
struct DimIter {
  int n = 0;
  const int64_t* size = nullptr;
  const int64_t* s0 = nullptr;
  const int64_t* s1 = nullptr;
  int64_t idx[kMaxDims] = {};
  int64_t off0 = 0, off1 = 0;

  DimIter(int n_, const int64_t* size_, const int64_t* s0_, const int64_t* s1_ = nullptr)
      : n(n_), size(size_), s0(s0_), s1(s1_) {}
  void seek(int64_t linear) {
    off0 = off1 = 0;
    for (int d = n - 1; d >= 0; --d) {
      idx[d] = linear % size[d];
      linear /= size[d];
      off0 += idx[d] * s0[d];
      if (s1) off1 += idx[d] * s1[d];
    }
  }
  void next() {
    for (int d = n - 1; d >= 0; --d) {
      ++idx[d];
      off0 += s0[d];
      if (s1) off1 += s1[d];
      if (idx[d] < size[d]) return;
      off0 -= s0[d] * size[d];
      if (s1) off1 -= s1[d] * size[d];
      idx[d] = 0;
    }
  }
};

// How one reduction reads, accumulates and combines. `acc` is the type runs are reduced in;
// `outer` the type partial results are combined in (double for float sums, for accuracy).
template <typename Op, typename in_t, typename acc, typename out_t>
struct Reducer {
  static constexpr bool kIsSum = std::is_same_v<Op, SumReduce>;
  using outer = std::conditional_t<kIsSum && std::is_same_v<acc, float>, double, acc>;

  static acc load(in_t x) { return reduce_load<Op, acc>(x); }
  template <typename T>
  static T identity() {
    return Op::template identity<T>();
  }
  template <typename T>
  static T combine(T a, T b) {
    if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, MaxReduce>) {
      return ((b > a) | (b != b)) ? b : a;  // same as MaximumOp (NaN wins), but branch-free
    } else if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, MinReduce>) {
      return ((b < a) | (b != b)) ? b : a;
    } else {
      return static_cast<T>(Op()(a, b));
    }
  }
  static out_t store(outer v) { return reduce_store<out_t>(v); }

  // Sum of n elements at stride s: pairwise above a block, 8 independent lanes inside it.
  static acc sum_run(const in_t* x, int64_t n, int64_t s) {
    constexpr int64_t kBlock = 256;
    if (n > kBlock) {
      int64_t h = (n / 2) & ~int64_t(7);
      return static_cast<acc>(sum_run(x, h, s) + sum_run(x + h * s, n - h, s));
    }
    acc a[8] = {};
    int64_t i = 0;
    if (s == 1) {
      for (; i + 8 <= n; i += 8) {
        for (int j = 0; j < 8; ++j) a[j] = static_cast<acc>(a[j] + load(x[i + j]));
      }
    } else {
      for (; i + 8 <= n; i += 8) {
        for (int j = 0; j < 8; ++j) a[j] = static_cast<acc>(a[j] + load(x[(i + j) * s]));
      }
    }
    acc r = static_cast<acc>(((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])));
    for (; i < n; ++i) r = static_cast<acc>(r + load(x[i * s]));
    return r;
  }

  static acc run(const in_t* x, int64_t n, int64_t s) {
    if constexpr (kIsSum) {
      return sum_run(x, n, s);
    } else {
      acc a[8];
      for (int j = 0; j < 8; ++j) a[j] = identity<acc>();
      int64_t i = 0;
      if (s == 1) {
        for (; i + 8 <= n; i += 8) {
          for (int j = 0; j < 8; ++j) a[j] = combine(a[j], load(x[i + j]));
        }
      } else {
        for (; i + 8 <= n; i += 8) {
          for (int j = 0; j < 8; ++j) a[j] = combine(a[j], load(x[(i + j) * s]));
        }
      }
      acc r = combine(combine(combine(a[0], a[1]), combine(a[2], a[3])),
                      combine(combine(a[4], a[5]), combine(a[6], a[7])));
      for (; i < n; ++i) r = combine(r, load(x[i * s]));
      return r;
    }
  }
};

template <typename Red, typename in_t>
typename Red::outer reduce_span(const ReduceLayout& L, const in_t* base, int64_t rb, int64_t re) {
  using outer = typename Red::outer;
  outer total = Red::template identity<outer>();
  if (rb >= re) return total;
  const int64_t len = L.nr ? L.rsize[L.nr - 1] : 1;
  const int64_t s = L.nr ? L.rin[L.nr - 1] : 1;
  DimIter it(std::max(L.nr - 1, 0), L.rsize, L.rin);
  it.seek(rb / len);
  int64_t j = rb % len, pos = rb;
  while (pos < re) {
    const int64_t n = std::min(len - j, re - pos);
    total = Red::combine(total, static_cast<outer>(Red::run(base + it.off0 + j * s, n, s)));
    pos += n;
    j = 0;
    it.next();
  }
  return total;
}

template <typename Red, typename in_t, typename out_t>
void reduce_per_output(const ReduceLayout& L, const in_t* in, out_t* out, int threads) {
  using outer = typename Red::outer;
  const int64_t total = L.K * L.R;
  if (L.K >= threads || total < kParallelGrain || threads <= 1) {
    const int64_t chunks =
        total < kParallelGrain ? 1 : std::min<int64_t>(threads, std::max<int64_t>(L.K, 1));
    auto body = [&](int64_t kb, int64_t ke) {
      DimIter it(L.nk, L.ksize, L.kin, L.kout);
      it.seek(kb);
      for (int64_t k = kb; k < ke; ++k, it.next()) {
        out[it.off1] = Red::store(reduce_span<Red>(L, in + it.off0, 0, L.R));
      }
    };
    if (chunks <= 1) {
      body(0, L.K);
      return;
    }
#pragma omp parallel for num_threads(chunks) schedule(static)
    for (int64_t c = 0; c < chunks; ++c) body(L.K * c / chunks, L.K * (c + 1) / chunks);
    return;
  }
  // Few outputs, much work each: split every output's reduced space across threads.
  const int64_t chunks = std::min<int64_t>(threads, (L.R + 4095) / 4096);
  std::unique_ptr<outer[]> partial(new outer[std::max<int64_t>(chunks, 1)]);  // not vector<bool>
  DimIter it(L.nk, L.ksize, L.kin, L.kout);
  it.seek(0);
  for (int64_t k = 0; k < L.K; ++k, it.next()) {
    const in_t* base = in + it.off0;
    if (chunks <= 1) {
      out[it.off1] = Red::store(reduce_span<Red>(L, base, 0, L.R));
      continue;
    }
#pragma omp parallel for num_threads(chunks) schedule(static)
    for (int64_t c = 0; c < chunks; ++c) {
      partial[c] = reduce_span<Red>(L, base, L.R * c / chunks, L.R * (c + 1) / chunks);
    }
    outer r = partial[0];
    for (int64_t c = 1; c < chunks; ++c) r = Red::combine(r, partial[c]);
    out[it.off1] = Red::store(r);
  }
}

// Column path: the innermost kept dim (width W) is contiguous in input and output.
template <typename Red, typename in_t>
void accumulate_rows(const ReduceLayout& L, const in_t* base, int64_t w, typename Red::outer* buf,
                     int64_t rb, int64_t re) {
  using outer = typename Red::outer;
  using acc = decltype(Red::load(in_t()));
  for (int64_t i = 0; i < w; ++i) buf[i] = Red::template identity<outer>();
  if (rb >= re) return;
  DimIter it(L.nr, L.rsize, L.rin);
  it.seek(rb);
  if constexpr (std::is_same_v<outer, acc>) {
    for (int64_t r = rb; r < re; ++r, it.next()) {
      const in_t* p = base + it.off0;
      for (int64_t i = 0; i < w; ++i) buf[i] = Red::combine(buf[i], Red::load(p[i]));
    }
  } else {
    // Float sums: blocks of rows accumulate in float (vectorised), blocks combine in double.
    constexpr int64_t kRows = 128;
    acc blk[kTile];
    for (int64_t r0 = rb; r0 < re; r0 += kRows) {
      for (int64_t i = 0; i < w; ++i) blk[i] = acc(0);
      const int64_t r1 = std::min(re, r0 + kRows);
      for (int64_t r = r0; r < r1; ++r, it.next()) {
        const in_t* p = base + it.off0;
        for (int64_t i = 0; i < w; ++i) blk[i] += Red::load(p[i]);
      }
      for (int64_t i = 0; i < w; ++i) buf[i] += static_cast<outer>(blk[i]);
    }
  }
}

template <typename Red, typename in_t, typename out_t>
void reduce_columns(const ReduceLayout& L, const in_t* in, out_t* out, int threads) {
  using outer = typename Red::outer;
  const int64_t W = L.ksize[L.nk - 1];
  const int64_t tiles_per_row = (W + kTile - 1) / kTile;
  const int64_t rows = L.K / W;  // kept positions outside the contiguous dim
  const int64_t tasks = rows * tiles_per_row;
  const int64_t total = L.K * L.R;
  DimIter proto(L.nk - 1, L.ksize, L.kin, L.kout);

  auto task_base = [&](int64_t t, const in_t*& ib, out_t*& ob, int64_t& w) {
    const int64_t row = t / tiles_per_row, tile = t % tiles_per_row;
    DimIter it = proto;
    it.seek(row);
    ib = in + it.off0 + tile * kTile;
    ob = out + it.off1 + tile * kTile;
    w = std::min(kTile, W - tile * kTile);
  };

  if (tasks >= threads || total < kParallelGrain || threads <= 1) {
    const int64_t chunks = total < kParallelGrain ? 1 : std::min<int64_t>(threads, tasks);
    auto body = [&](int64_t tb, int64_t te) {
      outer buf[kTile];
      for (int64_t t = tb; t < te; ++t) {
        const in_t* ib;
        out_t* ob;
        int64_t w;
        task_base(t, ib, ob, w);
        accumulate_rows<Red>(L, ib, w, buf, 0, L.R);
        for (int64_t i = 0; i < w; ++i) ob[i] = Red::store(buf[i]);
      }
    };
    if (chunks <= 1) {
      body(0, tasks);
      return;
    }
#pragma omp parallel for num_threads(chunks) schedule(static)
    for (int64_t c = 0; c < chunks; ++c) body(tasks * c / chunks, tasks * (c + 1) / chunks);
    return;
  }
  // Few columns, many rows: threads take slices of the rows, then partial columns are combined.
  const int64_t chunks = std::min<int64_t>(threads, std::max<int64_t>(L.R / 64, 1));
  std::unique_ptr<outer[]> partial(new outer[chunks * kTile]);
  for (int64_t t = 0; t < tasks; ++t) {
    const in_t* ib;
    out_t* ob;
    int64_t w;
    task_base(t, ib, ob, w);
#pragma omp parallel for num_threads(chunks) schedule(static)
    for (int64_t c = 0; c < chunks; ++c) {
      accumulate_rows<Red>(L, ib, w, partial.get() + c * kTile, L.R * c / chunks,
                           L.R * (c + 1) / chunks);
    }
    for (int64_t i = 0; i < w; ++i) {
      outer r = partial[i];
      for (int64_t c = 1; c < chunks; ++c) r = Red::combine(r, partial[c * kTile + i]);
      ob[i] = Red::store(r);
    }
  }
}

template <typename Op, typename in_t, typename acc, typename out_t>
void reduce_kernel(const Tensor& out, const Tensor& in) {
  using Red = Reducer<Op, in_t, acc, out_t>;
  if (out.numel() == 0) return;
  auto* op = static_cast<out_t*>(out.data_ptr());
  if (in.numel() == 0) {  // empty reduction: the identity (sum 0, prod 1, all true ...)
    const out_t v = Red::store(Red::template identity<typename Red::outer>());
    for_each<1>({&out}, [&](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<out_t*>(p[0] + i * s[0]) = v;
    });
    return;
  }
  const ReduceLayout L = make_reduce_layout(out, in);
  const auto* ip = static_cast<const in_t*>(in.data_ptr());
  const int threads = omp_in_parallel() ? 1 : intra_op_threads();
  const bool columns =
      L.nk > 0 && L.nr > 0 && L.kin[L.nk - 1] == 1 && L.kout[L.nk - 1] == 1 && L.rin[L.nr - 1] != 1;
  if (columns) {
    reduce_columns<Red>(L, ip, op, threads);
  } else {
    reduce_per_output<Red>(L, ip, op, threads);
  }
}

struct ReduceKernel {
  template <typename Op, typename in_t, typename acc, typename out_t>
  static void run(const Tensor& out, const Tensor& in) {
    reduce_kernel<Op, in_t, acc, out_t>(out, in);
  }
};

}  // namespace

void CpuBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& in) {
  EMBER_DISPATCH_ALL(in.dtype(), "reduce",
                     [&] { reduce_dispatch_op<ReduceKernel, scalar_t>(op, out, in); });
}

namespace {

template <typename in_t>
void arg_reduce_kernel(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in,
                       int64_t dim) {
  const int64_t D = in.size(dim);
  const int64_t sd = in.stride(dim) * static_cast<int64_t>(sizeof(in_t));  // bytes
  DimVector sizes(in.sizes());
  sizes[dim] = 1;
  // `in` seen with one element along `dim`: the loop visits each output once, then scans `dim`.
  Tensor in1 = make_view(in, sizes, in.strides(), in.storage_offset());
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(D, 1));
  for_each<3>(
      {&values, &indices, &in1},
      [&](char** ptr, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          const char* x = ptr[2] + i * s[2];
          const int64_t bi = arg_reduce_scan<in_t>(x, D, sd, is_max);
          *reinterpret_cast<in_t*>(ptr[0] + i * s[0]) = *reinterpret_cast<const in_t*>(x + bi * sd);
          *reinterpret_cast<int64_t*>(ptr[1] + i * s[1]) = bi;
        }
      },
      grain);
}

}  // namespace

void CpuBackend::arg_reduce(bool is_max, const Tensor& values, const Tensor& indices,
                            const Tensor& in, int64_t dim) {
  EMBER_CHECK(indices.dtype() == kLong, TypeError, "arg_reduce: indices must be int64, got ",
              to_string(indices.dtype()));
  EMBER_CHECK(values.dtype() == in.dtype(), TypeError, "arg_reduce: values dtype ",
              to_string(values.dtype()), " differs from input dtype ", to_string(in.dtype()));
  if (values.numel() == 0) return;
  if (in.dim() == 0) {
    copy(values, in, false);
    fill(indices, 0);
    return;
  }
  EMBER_CHECK(in.size(dim) > 0, IndexError, is_max ? "argmax" : "argmin",
              "(): Expected reduction dim ", dim, " to have non-zero size.");
  EMBER_DISPATCH_ALL(in.dtype(), is_max ? "argmax" : "argmin",
                     [&] { arg_reduce_kernel<scalar_t>(is_max, values, indices, in, dim); });
}

}  // namespace ember::cpu
