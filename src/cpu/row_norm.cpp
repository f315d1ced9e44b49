// The row_norm families on the CPU (kernel_math/row_norm.h has the math): rows in parallel, each
// read twice for its mean and variance and once more to write; the backward reads a row's
// grad_out and input once for its two sums (adding to the weight gradients on the way) and once
// more to write grad_in. The loops are `omp simd` reductions, which the compiler vectorises.
// Weights come in two shapes: one per element (layer_norm: inner == 1) or one per run of `inner`
// elements (group_norm, instance_norm), where a run's scale and shift fold into two numbers.
#include <algorithm>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "cpu/num_threads.h"
#include "kernel_math/row_norm.h"

namespace ember::cpu {
namespace {

// The mean and 1/std of the K elements at x. The sum is taken relative to the first element, so
// that rows far from zero (10000 +- 1) keep float32's precision in the mean.
template <typename T>
void row_moments(const T* x, int64_t K, double eps, T& mean, T& rstd) {
  const T pivot = K > 0 ? x[0] : T(0);
  T sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t k = 0; k < K; ++k) sum += x[k] - pivot;
  mean = pivot + sum / static_cast<T>(K);
  T squares = 0;
  const T m = mean;
#pragma omp simd reduction(+ : squares)
  for (int64_t k = 0; k < K; ++k) squares += (x[k] - m) * (x[k] - m);
  rstd = row_norm_rstd(squares, K, eps);
}

// y = x * scale + shift over n elements.
template <typename T>
void scale_shift(T* y, const T* x, int64_t n, T scale, T shift) {
#pragma omp simd
  for (int64_t k = 0; k < n; ++k) y[k] = x[k] * scale + shift;
}

// y = (x - mean) * rstd, times w and plus b per element where the flags say.
template <typename T, bool kWeight, bool kBias>
void normalize_elements(T* y, const T* x, int64_t K, T m, T s, const T* w, const T* b) {
#pragma omp simd
  for (int64_t k = 0; k < K; ++k) {
    T v = (x[k] - m) * s;
    if constexpr (kWeight) v *= w[k];
    if constexpr (kBias) v += b[k];
    y[k] = v;
  }
}

template <typename T>
void row_norm_forward(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& in,
                      const Tensor& weight, const Tensor& bias, const RowNormGeometry& g) {
  const int64_t K = g.row_size, W = g.weights_per_group;
  T* y = out.data_ptr<T>();
  const T* x = in.data_ptr<T>();
  const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
  const T* b = bias.defined() ? bias.data_ptr<T>() : nullptr;
  T* means = mean.data_ptr<T>();
  T* rstds = rstd.data_ptr<T>();
  parallel_for(g.rows, K * 3, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = x + r * K;
      T* yr = y + r * K;
      T m, s;
      row_moments(xr, K, g.eps, m, s);
      means[r] = m;
      rstds[r] = s;
      const int64_t first_weight = (r % g.groups) * W;
      if (g.inner() == 1 && (w || b)) {  // a weight per element
        const T* wr = w ? w + first_weight : nullptr;
        const T* br = b ? b + first_weight : nullptr;
        if (wr && br) {
          normalize_elements<T, true, true>(yr, xr, K, m, s, wr, br);
        } else if (wr) {
          normalize_elements<T, true, false>(yr, xr, K, m, s, wr, br);
        } else {
          normalize_elements<T, false, true>(yr, xr, K, m, s, wr, br);
        }
      } else if (w || b) {  // a weight per run: y = x * (s w) + (b - m s w)
        for (int64_t j = 0; j < W; ++j) {
          const T scale = s * (w ? w[first_weight + j] : T(1));
          const T shift = (b ? b[first_weight + j] : T(0)) - m * scale;
          scale_shift(yr + j * g.inner(), xr + j * g.inner(), g.inner(), scale, shift);
        }
      } else {
        scale_shift(yr, xr, K, s, -m * s);
      }
    }
  });
}

// One row's backward. Sums first (g = dy * w, with the weight gradients added into dw/db when
// given), then dx = rstd * (g - sum(g) / K - xhat * sum(g xhat) / K).
template <typename T>
void row_backward(T* dx, T* dw, T* db, const T* dy, const T* x, const T* w, T m, T s,
                  const RowNormGeometry& g) {
  const int64_t K = g.row_size;
  T sum_g = 0, sum_gx = 0;                  // sum(g) and sum(g * xhat)
  if (g.inner() == 1 && (w || dw || db)) {  // a weight (or its gradient) per element
#pragma omp simd reduction(+ : sum_g, sum_gx)
    for (int64_t k = 0; k < K; ++k) {
      const T gk = w ? dy[k] * w[k] : dy[k];
      sum_g += gk;
      sum_gx += gk * (x[k] - m) * s;
    }
    if (dw) {
#pragma omp simd
      for (int64_t k = 0; k < K; ++k) dw[k] += dy[k] * (x[k] - m) * s;
    }
    if (db) {
#pragma omp simd
      for (int64_t k = 0; k < K; ++k) db[k] += dy[k];
    }
    if (!dx) return;
    const T a = sum_g / static_cast<T>(K), c = sum_gx / static_cast<T>(K);
#pragma omp simd
    for (int64_t k = 0; k < K; ++k) {
      dx[k] = s * ((w ? dy[k] * w[k] : dy[k]) - a - (x[k] - m) * s * c);
    }
    return;
  }
  // A weight per run of `inner` (or, with no weight and no weight gradient, one run of K with
  // weight 1). dx = c1 dy + c2 x + c3 on each run.
  const bool per_run = w || dw || db;
  const int64_t runs = per_run ? g.weights_per_group : (K > 0 ? 1 : 0);
  const int64_t run = per_run ? g.inner() : K;
  for (int64_t j = 0; j < runs; ++j) {
    const T* dyj = dy + j * run;
    const T* xj = x + j * run;
    T sdy = 0, sdyx = 0;  // sum(dy) and sum(dy * (x - mean)) over the run
#pragma omp simd reduction(+ : sdy, sdyx)
    for (int64_t k = 0; k < run; ++k) {
      sdy += dyj[k];
      sdyx += dyj[k] * (xj[k] - m);
    }
    const T wj = w ? w[j] : T(1);
    sum_g += wj * sdy;
    sum_gx += wj * sdyx * s;
    if (dw) dw[j] += sdyx * s;
    if (db) db[j] += sdy;
  }
  if (!dx) return;
  const T a = sum_g / static_cast<T>(K), c = sum_gx / static_cast<T>(K);
  const T c2 = -s * s * c, c3 = -s * a + s * s * m * c;
  for (int64_t j = 0; j < runs; ++j) {
    const T c1 = s * (w ? w[j] : T(1));
    const T* dyj = dy + j * run;
    const T* xj = x + j * run;
    T* dxj = dx + j * run;
#pragma omp simd
    for (int64_t k = 0; k < run; ++k) dxj[k] = c1 * dyj[k] + c2 * xj[k] + c3;
  }
}

template <typename T>
void row_norm_backward_typed(const Tensor& grad_in, const Tensor& grad_weight,
                             const Tensor& grad_bias, const Tensor& grad_out, const Tensor& in,
                             const Tensor& mean, const Tensor& rstd, const Tensor& weight,
                             const RowNormGeometry& g) {
  const int64_t K = g.row_size, W = g.weights_per_group, total = g.weight_count();
  T* dx = grad_in.defined() ? grad_in.data_ptr<T>() : nullptr;
  const T* dy = grad_out.data_ptr<T>();
  const T* x = in.data_ptr<T>();
  const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
  const T* means = mean.data_ptr<T>();
  const T* rstds = rstd.data_ptr<T>();
  const bool want_dw = grad_weight.defined(), want_db = grad_bias.defined();
  // The weight gradients add up over rows: each task sums its rows into its own slot, and the
  // slots are added in task order (the same bits for the same thread count).
  const int threads = intra_op_threads();
  const int64_t tasks =
      std::max<int64_t>(1, std::min<int64_t>({threads, g.rows, g.rows * K * 4 / kParallelGrain}));
  std::vector<T> partial_w(want_dw ? tasks * total : 0), partial_b(want_db ? tasks * total : 0);
  parallel_for(tasks, g.rows * K * 4 / tasks, [&](int64_t t_begin, int64_t t_end) {
    for (int64_t t = t_begin; t < t_end; ++t) {
      T* pw = want_dw ? partial_w.data() + t * total : nullptr;
      T* pb = want_db ? partial_b.data() + t * total : nullptr;
      for (int64_t r = g.rows * t / tasks; r < g.rows * (t + 1) / tasks; ++r) {
        const int64_t first_weight = (r % g.groups) * W;
        row_backward(dx ? dx + r * K : nullptr, pw ? pw + first_weight : nullptr,
                     pb ? pb + first_weight : nullptr, dy + r * K, x + r * K,
                     w ? w + first_weight : nullptr, means[r], rstds[r], g);
      }
    }
  });
  auto add_up = [&](const std::vector<T>& partial, const Tensor& result) {
    T* out = result.data_ptr<T>();
    for (int64_t j = 0; j < total; ++j) {
      T s = 0;
      for (int64_t t = 0; t < tasks; ++t) s += partial[t * total + j];
      out[j] = s;
    }
  };
  if (want_dw) add_up(partial_w, grad_weight);
  if (want_db) add_up(partial_b, grad_bias);
}

}  // namespace

void CpuBackend::row_norm(const Tensor& out, const Tensor& mean, const Tensor& rstd,
                          const Tensor& in, const Tensor& weight, const Tensor& bias,
                          const RowNormGeometry& g) {
  if (in.scalar_type() == kDouble) {
    row_norm_forward<double>(out, mean, rstd, in, weight, bias, g);
  } else {
    row_norm_forward<float>(out, mean, rstd, in, weight, bias, g);
  }
}

void CpuBackend::row_norm_backward(const Tensor& grad_in, const Tensor& grad_weight,
                                   const Tensor& grad_bias, const Tensor& grad_out,
                                   const Tensor& in, const Tensor& mean, const Tensor& rstd,
                                   const Tensor& weight, const RowNormGeometry& g) {
  if (in.scalar_type() == kDouble) {
    row_norm_backward_typed<double>(grad_in, grad_weight, grad_bias, grad_out, in, mean, rstd,
                                    weight, g);
  } else {
    row_norm_backward_typed<float>(grad_in, grad_weight, grad_bias, grad_out, in, mean, rstd,
                                   weight, g);
  }
}

}  // namespace ember::cpu
