#pragma once
// The operator rows, written once against the libtorch API through the namespace alias `tt`
// (ember or torch), so both programs do exactly the same work. Include after defining
// `namespace bench { namespace tt = ::ember; }` (or ::torch).
#include <string>

#include "harness.h"

namespace bench {

inline std::string size_label(int64_t n) {
  if (n >= (1 << 20) && n % (1 << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n >= (1 << 10) && n % (1 << 10) == 0) return std::to_string(n >> 10) + "K";
  return std::to_string(n);
}

// Sizes of the elementwise rows: 1K to 16M elements, x4 steps.
inline std::vector<int64_t> elementwise_sizes() {
  std::vector<int64_t> v;
  for (int64_t n = 1 << 10; n <= (int64_t(1) << 24); n *= 4) v.push_back(n);
  return v;
}

inline std::vector<int64_t> gemm_sizes() {
  return {256, 512, 1024, 2048, 4096};
}

// Per-call cost of ops on 16 float32 elements: what dispatch, allocation and bookkeeping cost.
inline void small_op_rows(Runner& r) {
  if (!r.wants("small")) return;
  tt::Tensor a = tt::randn({16}), b = tt::randn({16});
  r.time("small", "add_16", Unit::kMicroseconds, 0, [&] { tt::Tensor c = a + b; });
  r.time("small", "mul_16", Unit::kMicroseconds, 0, [&] { tt::Tensor c = a * b; });
  r.time("small", "relu_16", Unit::kMicroseconds, 0, [&] { tt::Tensor c = tt::relu(a); });
  r.time("small", "sum_16", Unit::kMicroseconds, 0, [&] { tt::Tensor c = a.sum(); });
  // Ten dependent ops, each allocating its output.
  r.time("small", "chain10_16", Unit::kMicroseconds, 0, [&] {
    tt::Tensor t = a + b;
    t = t * a;
    t = t - b;
    t = tt::relu(t);
    t = t + 1.0;
    t = t * 0.5;
    t = tt::exp(t);
    t = tt::sigmoid(t);
    t = tt::tanh(t);
    t = t.sum();
  });
}

// Transcendental activations with the output allocated; bytes = one read + one write. The input
// spans [-8, 8], where every function does real work (no saturated or underflowed lanes only).
inline void math_rows(Runner& r) {
  for (int64_t n : {int64_t(1) << 20, int64_t(1) << 24}) {
    tt::Tensor a = tt::rand({n}) * 16 - 8;
    const std::string sz = size_label(n);
    r.time("elementwise", "exp_" + sz, Unit::kGBps, 8.0 * n, [&] { tt::Tensor c = tt::exp(a); });
    r.time("elementwise", "tanh_" + sz, Unit::kGBps, 8.0 * n, [&] { tt::Tensor c = tt::tanh(a); });
    r.time("elementwise", "sigmoid_" + sz, Unit::kGBps, 8.0 * n,
           [&] { tt::Tensor c = tt::sigmoid(a); });
    r.time("elementwise", "gelu_" + sz, Unit::kGBps, 8.0 * n, [&] { tt::Tensor c = tt::gelu(a); });
  }
}

// c = a op b with the output allocated, as user code writes it; bytes = two reads + one write.
inline void elementwise_rows(Runner& r) {
  if (!r.wants("elementwise")) return;
  for (int64_t n : elementwise_sizes()) {
    tt::Tensor a = tt::randn({n}), b = tt::randn({n});
    double bytes = 12.0 * n;
    r.time("elementwise", "add_" + size_label(n), Unit::kGBps, bytes,
           [&] { tt::Tensor c = a + b; });
    r.time("elementwise", "mul_" + size_label(n), Unit::kGBps, bytes,
           [&] { tt::Tensor c = a * b; });
  }
  // In place: the same traffic without a fresh (page-faulting) output buffer.
  int64_t n = int64_t(1) << 24;
  tt::Tensor a = tt::randn({n}), b = tt::randn({n});
  r.time("elementwise", "add_inplace_16M", Unit::kGBps, 12.0 * n, [&] { a.add_(b); });
  math_rows(r);
}

inline void reduction_rows(Runner& r) {
  if (!r.wants("reduce")) return;
  int64_t n = int64_t(1) << 24;
  tt::Tensor a = tt::randn({n});
  r.time("reduce", "sum_all_16M", Unit::kGBps, 4.0 * n, [&] { tt::Tensor s = a.sum(); });
  tt::Tensor m = tt::randn({4096, 4096});
  r.time("reduce", "sum_lastdim_4096x4096", Unit::kGBps, 4.0 * m.numel(),
         [&] { tt::Tensor s = m.sum({1}); });
  r.time("reduce", "sum_firstdim_4096x4096", Unit::kGBps, 4.0 * m.numel(),
         [&] { tt::Tensor s = m.sum({0}); });
  tt::Tensor small = tt::randn({128, 10});
  r.time("reduce", "mean_lastdim_128x10", Unit::kMicroseconds, 0,
         [&] { tt::Tensor s = small.mean({1}); });
}

inline void gemm_rows(Runner& r) {
  if (!r.wants("gemm")) return;
  for (int64_t n : gemm_sizes()) {
    tt::Tensor a = tt::randn({n, n}), b = tt::randn({n, n});
    r.time("gemm", "sgemm_" + std::to_string(n), Unit::kGFLOPs, 2.0 * n * n * n,
           [&] { tt::Tensor c = tt::mm(a, b); });
  }
}

inline void softmax_rows(Runner& r) {
  if (!r.wants("softmax")) return;
  tt::Tensor big = tt::randn({4096, 1024});
  r.time("softmax", "softmax_4096x1024", Unit::kGBps, 8.0 * big.numel(),
         [&] { tt::Tensor y = tt::softmax(big, -1); });
  r.time("softmax", "log_softmax_4096x1024", Unit::kGBps, 8.0 * big.numel(),
         [&] { tt::Tensor y = tt::log_softmax(big, -1); });
  tt::Tensor logits = tt::randn({128, 10});
  r.time("softmax", "softmax_128x10", Unit::kMicroseconds, 0,
         [&] { tt::Tensor y = tt::softmax(logits, -1); });
  r.time("softmax", "log_softmax_128x10", Unit::kMicroseconds, 0,
         [&] { tt::Tensor y = tt::log_softmax(logits, -1); });
}

// The decompositions and factorisations on the shapes models meet: one mid-sized matrix, and a
// batch of small ones (per-sample whitening, parametrisations). Both libraries call LAPACK here.
inline void linalg_rows(Runner& r) {
  if (!r.wants("linalg")) return;
  tt::Tensor square = tt::randn({256, 256}, tt::kDouble);
  tt::Tensor sym = square + square.t();
  tt::Tensor batch = tt::randn({256, 8, 8}, tt::kDouble);
  r.time("linalg", "qr_256", Unit::kMilliseconds, 0,
         [&] { auto qr = tt::linalg::qr(square, "reduced"); });
  r.time("linalg", "eigh_256", Unit::kMilliseconds, 0,
         [&] { auto e = tt::linalg::eigh(sym, "L"); });
  // The nuclear norm is the sum of the singular values: an SVD without vectors in both libraries
  // (svdvals itself takes a driver argument in libtorch only).
  r.time("linalg", "nuclear_norm_256", Unit::kMilliseconds, 0, [&] {
    tt::Tensor s = tt::linalg::matrix_norm(square, "nuc", {-2, -1}, false, {});
  });
  r.time("linalg", "lu_factor_256", Unit::kMilliseconds, 0,
         [&] { auto f = tt::linalg::lu_factor(square, true); });
  r.time("linalg", "qr_b256x8", Unit::kMicroseconds, 0,
         [&] { auto qr = tt::linalg::qr(batch, "reduced"); });
  r.time("linalg", "eigh_b256x8", Unit::kMicroseconds, 0,
         [&] { auto e = tt::linalg::eigh(batch + batch.transpose(-2, -1), "L"); });
  r.time("linalg", "nuclear_norm_b256x8", Unit::kMicroseconds, 0, [&] {
    tt::Tensor s = tt::linalg::matrix_norm(batch, "nuc", {-2, -1}, false, {});
  });
}

inline void op_rows(Runner& r) {
  tt::manual_seed(0);
  small_op_rows(r);
  elementwise_rows(r);
  reduction_rows(r);
  gemm_rows(r);
  softmax_rows(r);
  linalg_rows(r);
}

}  // namespace bench
