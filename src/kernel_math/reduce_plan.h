#pragma once
// What the CPU and CUDA reductions share, so both backends plan and type a reduction alike: the
// split of the input's dims into kept and reduced groups (each coalesced), how elements are
// read and results stored, the output dtypes each reduction may write, and the arg max/min scan.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ember/error.h"
#include "ember/tensor.h"
#include "kernel_math/dispatch.h"
#include "kernel_math/functors.h"
#include "kernel_math/ops_list.h"

namespace ember {

constexpr int kReduceMaxDims = 16;

// Kept dims (the output's) and reduced dims, strides in elements. K outputs, R elements each.
struct ReduceLayout {
  int nk = 0, nr = 0;
  int64_t ksize[kReduceMaxDims], kin[kReduceMaxDims], kout[kReduceMaxDims];
  int64_t rsize[kReduceMaxDims], rin[kReduceMaxDims];
  int64_t K = 1, R = 1;
};

// `out` has `in`'s rank with size 1 along the reduced dims. An empty input gives R == 0.
inline ReduceLayout make_reduce_layout(const Tensor& out, const Tensor& in) {
  ReduceLayout L;
  const int64_t nd = in.dim();
  EMBER_CHECK(nd <= kReduceMaxDims, ValueError, "reductions support at most ", kReduceMaxDims,
              " dims");
  EMBER_CHECK(out.dim() == nd, ValueError, "reduce: output rank ", out.dim(),
              " differs from input rank ", nd);
  struct RDim {
    int64_t size, stride;
  };
  RDim red[kReduceMaxDims];
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
  // Reduced dims in any order give the same result: put the smallest stride innermost.
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

template <typename Op>
constexpr bool kLogicalReduce = std::is_same_v<Op, AnyReduce> || std::is_same_v<Op, AllReduce>;

// An input element in the accumulation type (any/all accumulate truth values).
template <typename Op, typename acc, typename in_t>
EMBER_HD_INLINE acc reduce_load(in_t x) {
  if constexpr (kLogicalReduce<Op>) {
    return static_cast<bool>(static_cast<acc_t<in_t>>(x));
  } else {
    return static_cast<acc>(static_cast<acc_t<in_t>>(x));
  }
}

template <typename out_t, typename V>
EMBER_HD_INLINE out_t reduce_store(V v) {
  if constexpr (std::is_same_v<out_t, Half> || std::is_same_v<out_t, BFloat16>) {
    return out_t(static_cast<float>(v));
  } else {
    return static_cast<out_t>(v);
  }
}

// Picks the accumulation and output types from the output dtype the front end asked for, then
// calls Kernel::template run<Op, in_t, acc, out_t>(out, in).
template <typename Kernel, typename Op, typename in_t>
void reduce_dispatch_out(const Tensor& out, const Tensor& in, const char* name) {
  const ScalarType ot = out.dtype(), it = in.dtype();
  constexpr bool widen = std::is_same_v<Op, SumReduce> || std::is_same_v<Op, ProdReduce>;
  if constexpr (kLogicalReduce<Op>) {
    if (ot == kBool) return Kernel::template run<Op, in_t, bool, bool>(out, in);
    if (ot == it) return Kernel::template run<Op, in_t, bool, in_t>(out, in);
  } else {
    // bool sums and products widen to int64 (the front ends always ask for that).
    if constexpr (!(widen && std::is_same_v<in_t, bool>)) {
      if (ot == it) return Kernel::template run<Op, in_t, acc_t<in_t>, in_t>(out, in);
    }
    if constexpr (widen && std::is_integral_v<in_t>) {
      if (ot == kLong) return Kernel::template run<Op, in_t, int64_t, int64_t>(out, in);
    }
  }
  throw TypeError(detail::str_cat(name, ": cannot reduce dtype ", to_string(it),
                                  " into an output of dtype ", to_string(ot)));
}

template <typename Kernel, typename in_t>
void reduce_dispatch_op(ReduceOp op, const Tensor& out, const Tensor& in) {
  switch (op) {
    case ReduceOp::Sum:
      return reduce_dispatch_out<Kernel, SumReduce, in_t>(out, in, "sum");
    case ReduceOp::Prod:
      return reduce_dispatch_out<Kernel, ProdReduce, in_t>(out, in, "prod");
    case ReduceOp::Max:
      return reduce_dispatch_out<Kernel, MaxReduce, in_t>(out, in, "max");
    case ReduceOp::Min:
      return reduce_dispatch_out<Kernel, MinReduce, in_t>(out, in, "min");
    case ReduceOp::Any:
      return reduce_dispatch_out<Kernel, AnyReduce, in_t>(out, in, "any");
    case ReduceOp::All:
      return reduce_dispatch_out<Kernel, AllReduce, in_t>(out, in, "all");
    default:
      throw NotImplementedError("unknown reduce op");
  }
}

// Index of the max (min) of the D elements at x, x + stride, ... (stride in bytes); the first
// NaN wins, as in PyTorch.
template <typename in_t>
EMBER_HD_INLINE int64_t arg_reduce_scan(const char* x, int64_t D, int64_t stride, bool is_max) {
  using T = acc_t<in_t>;
  T best = static_cast<T>(*reinterpret_cast<const in_t*>(x));
  int64_t bi = 0;
  if (fn::isnan_(best)) return 0;
  for (int64_t d = 1; d < D; ++d) {
    const T v = static_cast<T>(*reinterpret_cast<const in_t*>(x + d * stride));
    if (fn::isnan_(v)) return d;
    if (is_max ? v > best : v < best) {
      best = v;
      bi = d;
    }
  }
  return bi;
}

}  // namespace ember
