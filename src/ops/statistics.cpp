// Statistics, scans and integrals composed from sort, gather, cat and elementwise ops, so that
// they run on every backend and their gradients follow from those ops': aminmax, cummax/cummin
// and logcumsumexp (Hillis-Steele scans: log2(n) steps of a pairwise combination over shifted
// copies), kthvalue, median, nanmedian, quantile, nanquantile, diff, trapezoid,
// cumulative_trapezoid, dist, renorm and cdist. Texts of errors as PyTorch 1.13's.
#include <cmath>
#include <limits>

#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool is_16bit(const Tensor& t) {
  return t.dtype() == kHalf || t.dtype() == kBFloat16;
}

// An inclusive scan along d: out[j] = combine(out[j - s], out[j]) for s = 1, 2, 4, ... over
// (value, index) pairs. combine(earlier, later) returns the later pair where take_later says.
template <typename TakeLater>
std::tuple<Tensor, Tensor> scan_pairs(const Tensor& a, int64_t d, TakeLater take_later) {
  const int64_t n = a.size(d);
  DimVector index_shape(a.dim(), 1);
  index_shape[d] = n;
  Tensor values = a;
  Tensor indices = arange(n, TensorOptions().dtype(kLong).device(a.device()))
                       .reshape(index_shape)
                       .expand(a.sizes())
                       .contiguous();
  for (int64_t s = 1; s < n; s *= 2) {
    Tensor ev = values.narrow(d, 0, n - s), lv = values.narrow(d, s, n - s);
    Tensor ei = indices.narrow(d, 0, n - s), li = indices.narrow(d, s, n - s);
    Tensor later = take_later(ev, lv);
    values = cat({values.narrow(d, 0, s), where(later, lv, ev)}, d);
    indices = cat({indices.narrow(d, 0, s), where(later, li, ei)}, d);
  }
  return {values, indices};
}

std::tuple<Tensor, Tensor> cumulative_extreme(const Tensor& a, int64_t dim, bool max,
                                              const char* op) {
  const Tensor x = a.dim() == 0 ? a.reshape({1}) : a;
  const int64_t d = wrap_dim(dim, x.dim(), op);
  // PyTorch's rule: a NaN, or a value >= (<=) the running one when that is not NaN, takes over,
  // so NaN propagates and ties report the last index.
  auto [values, indices] = scan_pairs(x, d, [max](const Tensor& earlier, const Tensor& later) {
    Tensor better = max ? later.ge(earlier) : later.le(earlier);
    if (!later.is_floating_point()) return better;
    return logical_or(isnan(later), logical_and(logical_not(isnan(earlier)), better));
  });
  // A dim of one element: the scan did nothing, and the values must not alias the input.
  if (x.size(d) <= 1) values = values.clone();
  if (a.dim() == 0) return {values.reshape({}), indices.reshape({})};
  return {values, indices};
}

// Sorted along the last dim, with the permutation (NaNs last, ties in input order).
std::tuple<Tensor, Tensor> sorted_last(const Tensor& a) {
  return sort(a, std::optional<bool>(true), -1, false);
}

// The element of rank k (a long tensor, keepdim along the last dim) of each last-dim slice of
// `a`, and its index: gathered from `a` itself so that the gradient reaches the element.
std::tuple<Tensor, Tensor> pick_rank(const Tensor& a, const Tensor& perm, const Tensor& k) {
  Tensor index = perm.gather(-1, k);
  return {a.gather(-1, index), index};
}

std::tuple<Tensor, Tensor> median_along(const Tensor& a, int64_t dim, bool keepdim, bool ignore_nan,
                                        const char* op) {
  const Tensor x0 = a.dim() == 0 ? a.reshape({1}) : a;
  const int64_t d = wrap_dim(dim, x0.dim(), op);
  EMBER_CHECK(x0.size(d) > 0, IndexError, op, "(): Expected reduction dim ", dim,
              " to have non-zero size.");
  Tensor x = x0.movedim(d, -1);
  auto [sorted, perm] = sorted_last(x.detach());
  const int64_t n = x.size(-1);
  Tensor k;
  if (x.is_floating_point()) {
    Tensor nans = isnan(sorted).sum({-1}, true);
    // With NaNs: median picks the first NaN (sorted to the end, in input order); nanmedian the
    // lower median of the others (all NaN: rank 0, a NaN).
    k = ignore_nan ? div(clamp_min(n - nans - 1, 0), Scalar(2), "floor")
                   : where(nans.gt(0), n - nans, full_like(nans, (n - 1) / 2));
  } else {
    k = full_like(sorted.narrow(-1, 0, 1), (n - 1) / 2, TensorOptions().dtype(kLong));
  }
  auto [values, indices] = pick_rank(x, perm, k);
  values = values.squeeze(-1);
  indices = indices.squeeze(-1);
  if (keepdim && a.dim() > 0) {
    values = values.unsqueeze(d);
    indices = indices.unsqueeze(d);
  }
  return {values, indices};
}

Tensor median_all(const Tensor& a, bool ignore_nan) {
  if (a.numel() == 0) return full({}, kNaN, a.options());
  return std::get<0>(median_along(a.reshape({-1}), 0, false, ignore_nan, "median"));
}

Tensor quantile_impl(const Tensor& a, const Tensor& q_in, std::optional<int64_t> dim, bool keepdim,
                     std::string_view interpolation, bool ignore_nan, const char* op) {
  EMBER_CHECK(a.numel() > 0, ValueError, op, "() input tensor must be non-empty");
  EMBER_CHECK(q_in.dim() <= 1, ValueError, op, "() q must be a scalar or 1D tensor");
  EMBER_CHECK(a.is_floating_point(), TypeError, op,
              "() input tensor must be either float or double dtype");
  EMBER_CHECK(q_in.dtype() == a.dtype(), TypeError, op,
              "() q tensor must be same dtype as the input tensor");
  check_same_device(a, q_in, op);
  // float16 and bfloat16 (which PyTorch 1.13 refuses) compute in float32, rounded once.
  if (is_16bit(a)) {
    return quantile_impl(a.to(kFloat), q_in.to(kFloat), dim, keepdim, interpolation, ignore_nan, op)
        .to(a.dtype());
  }
  EMBER_CHECK(
      interpolation == "linear" || interpolation == "lower" || interpolation == "higher" ||
          interpolation == "midpoint" || interpolation == "nearest",
      ValueError, op,
      "() interpolation must be one of linear, lower, higher, midpoint or nearest, but got ",
      interpolation);
  // q stays differentiable: the linear interpolation's weight depends on it, as in PyTorch.
  const Tensor& q = q_in;
  if (q.numel() > 0 && !q.is_meta()) {  // a host read, as PyTorch's check; meta has no values
    const Tensor qd = q.detach();
    const bool in_range = logical_and(qd.ge(0), qd.le(1)).all().item<bool>();
    EMBER_CHECK(in_range, ValueError, op, "() q values must be in the range [0, 1]");
  }
  // The slices as the last dim: [rest..., n].
  int64_t d = 0;
  Tensor x;
  if (dim) {
    d = wrap_dim(*dim, std::max<int64_t>(a.dim(), 1), op);
    x = (a.dim() == 0 ? a.reshape({1}) : a).movedim(d, -1);
  } else {
    x = a.reshape({-1});
  }
  auto [sorted, perm] = sorted_last(x.detach());
  const int64_t n = x.size(-1);
  Tensor nans = isnan(sorted).sum({-1}, true).to(a.dtype());
  Tensor qs = q.reshape({-1});  // [Q]
  Tensor ranks;
  if (ignore_nan) {
    Tensor valid = n - nans;
    ranks = qs * (valid - 1);
    ranks = where(ranks.lt(0), Scalar(double(n - 1)), ranks);
  } else {
    ranks = where(nans.gt(0), Scalar(double(n - 1)), qs * double(n - 1) + zeros_like(nans));
  }
  if (interpolation == "lower") ranks = floor(ranks);
  if (interpolation == "higher") ranks = ceil(ranks);
  if (interpolation == "nearest") ranks = round(ranks);
  Tensor below = floor(ranks), above = ceil(ranks);
  Tensor lo = std::get<0>(pick_rank(x, perm, below.to(kLong)));
  Tensor hi = std::get<0>(pick_rank(x, perm, above.to(kLong)));
  Tensor weights = interpolation == "midpoint" ? full_like(ranks, 0.5) : ranks - below;
  Tensor result = lerp(lo, hi, weights);  // [rest..., Q]
  if (keepdim) {
    if (dim) {
      result = a.dim() == 0 ? result : result.unsqueeze(d);
    } else {
      DimVector ones(a.dim(), 1);
      ones.push_back(qs.numel());
      result = result.reshape(ones);
    }
  }
  return q.dim() == 1 ? result.movedim(-1, 0) : result.squeeze(-1);
}

// The dx between consecutive samples along d, shaped to multiply y's pairs.
Tensor spacing(const Tensor& y, const Tensor& x, int64_t d) {
  if (x.dim() == 1) {
    EMBER_CHECK(x.size(0) == y.size(d), ValueError,
                "trapezoid: There must be one `x` value for each sample point");
    DimVector shape(y.dim(), 1);
    shape[d] = x.size(0) - 1;
    return diff(x).reshape(shape);
  }
  return diff(x, 1, d - y.dim());
}

}  // namespace

std::tuple<Tensor, Tensor> aminmax(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  if (dim) return {amin(a, {*dim}, keepdim), amax(a, {*dim}, keepdim)};
  EMBER_CHECK(a.numel() > 0, ValueError,
              "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
              "identity.");
  return {amin(a, {}, keepdim), amax(a, {}, keepdim)};
}

std::tuple<Tensor, Tensor> cummax(const Tensor& a, int64_t dim) {
  return cumulative_extreme(a, dim, true, "cummax");
}
std::tuple<Tensor, Tensor> cummin(const Tensor& a, int64_t dim) {
  return cumulative_extreme(a, dim, false, "cummin");
}

Tensor logcumsumexp(const Tensor& a, int64_t dim) {
  EMBER_CHECK(a.is_floating_point(), TypeError, "\"logcumsumexp_out_cpu\" not implemented for '",
              to_string(a.dtype()), "'");
  if (is_16bit(a)) return logcumsumexp(a.to(kFloat), dim).to(a.dtype());
  const Tensor x = a.dim() == 0 ? a.reshape({1}) : a;
  const int64_t d = wrap_dim(dim, x.dim(), "logcumsumexp");
  const int64_t n = x.size(d);
  if (n <= 1) return a.clone();
  Tensor out = x;
  for (int64_t s = 1; s < n; s *= 2) {
    out =
        cat({out.narrow(d, 0, s), logaddexp(out.narrow(d, 0, n - s), out.narrow(d, s, n - s))}, d);
  }
  return out;
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& a, int64_t k, int64_t dim, bool keepdim) {
  const Tensor x0 = a.dim() == 0 ? a.reshape({1}) : a;
  const int64_t d = wrap_dim(dim, x0.dim(), "kthvalue");
  EMBER_CHECK(k >= 1 && k <= x0.size(d), ValueError,
              "kthvalue(): selected number k out of range for dimension ", dim, " (k = ", k,
              ", size ", x0.size(d), ")");
  Tensor x = x0.movedim(d, -1);
  Tensor perm = std::get<1>(sorted_last(x.detach()));
  Tensor rank = full_like(perm.narrow(-1, 0, 1), k - 1);
  auto [values, indices] = pick_rank(x, perm, rank);
  values = values.squeeze(-1);
  indices = indices.squeeze(-1);
  if (keepdim && a.dim() > 0) return {values.unsqueeze(d), indices.unsqueeze(d)};
  return {values, indices};
}

Tensor median(const Tensor& a) {
  return median_all(a, false);
}
std::tuple<Tensor, Tensor> median(const Tensor& a, int64_t dim, bool keepdim) {
  return median_along(a, dim, keepdim, false, "median");
}
Tensor nanmedian(const Tensor& a) {
  return median_all(a, true);
}
std::tuple<Tensor, Tensor> nanmedian(const Tensor& a, int64_t dim, bool keepdim) {
  return median_along(a, dim, keepdim, true, "nanmedian");
}

Tensor quantile(const Tensor& a, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  return quantile_impl(a, q, dim, keepdim, interpolation, false, "quantile");
}
Tensor quantile(const Tensor& a, double q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  EMBER_CHECK(q >= 0 && q <= 1, ValueError, "quantile() q must be in the range [0, 1] but got ", q);
  return quantile(a, full({}, q, a.options()), dim, keepdim, interpolation);
}
Tensor nanquantile(const Tensor& a, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  return quantile_impl(a, q, dim, keepdim, interpolation, true, "nanquantile");
}
Tensor nanquantile(const Tensor& a, double q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  EMBER_CHECK(q >= 0 && q <= 1, ValueError, "nanquantile() q must be in the range [0, 1] but got ",
              q);
  return nanquantile(a, full({}, q, a.options()), dim, keepdim, interpolation);
}

Tensor diff(const Tensor& a, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  EMBER_CHECK(a.dim() >= 1, ValueError, "diff expects input to be at least one-dimensional");
  const int64_t d = wrap_dim(dim, a.dim(), "diff");
  std::vector<Tensor> parts;
  for (const std::optional<Tensor>& extra : {prepend, append}) {
    if (extra && extra->defined()) {
      EMBER_CHECK(extra->dim() == a.dim(), ValueError,
                  "diff expects prepend or append to be the same dimension as input");
    }
  }
  if (prepend && prepend->defined()) parts.push_back(*prepend);
  parts.push_back(a);
  if (append && append->defined()) parts.push_back(*append);
  Tensor x = parts.size() == 1 ? a : cat(parts, d);
  // n <= 0 returns the (joined) input, as PyTorch 1.13 does.
  for (int64_t i = 0; i < n && x.size(d) > 0; ++i) {
    const int64_t len = x.size(d) - 1;
    Tensor later = x.narrow(d, 1, len), earlier = x.narrow(d, 0, len);
    x = x.dtype() == kBool ? logical_xor(later, earlier) : later - earlier;
  }
  return n <= 0 ? x.clone() : x;
}

Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  const int64_t d = wrap_dim(dim, y.dim(), "trapezoid");
  if (y.size(d) == 0) return sum(y, {d});
  Tensor pairs = y.narrow(d, 1, y.size(d) - 1) + y.narrow(d, 0, y.size(d) - 1);
  return sum(spacing(y, x, d) * pairs, {d}) / 2;
}
Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  const int64_t d = wrap_dim(dim, y.dim(), "trapezoid");
  if (y.size(d) == 0) return sum(y, {d});
  Tensor ends = y.select(d, 0) + y.select(d, -1);
  return (sum(y, {d}) - ends * 0.5) * dx;
}
Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim) {
  return trapezoid(y, x, dim);
}
Tensor trapz(const Tensor& y, double dx, int64_t dim) {
  return trapezoid(y, Scalar(dx), dim);
}
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  const int64_t d = wrap_dim(dim, y.dim(), "cumulative_trapezoid");
  const int64_t len = std::max<int64_t>(y.size(d) - 1, 0);
  Tensor pairs = y.narrow(d, std::min<int64_t>(1, y.size(d)), len) + y.narrow(d, 0, len);
  return cumsum(spacing(y, x, d) * pairs / 2, d);
}
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  const int64_t d = wrap_dim(dim, y.dim(), "cumulative_trapezoid");
  const int64_t len = std::max<int64_t>(y.size(d) - 1, 0);
  Tensor pairs = y.narrow(d, std::min<int64_t>(1, y.size(d)), len) + y.narrow(d, 0, len);
  return cumsum(pairs * (dx.toDouble() / 2), d);
}

Tensor dist(const Tensor& a, const Tensor& b, const Scalar& p) {
  if (is_16bit(a) && is_16bit(b)) return dist(a.to(kFloat), b.to(kFloat), p).to(a.dtype());
  return (a - b).norm(p);
}

Tensor renorm(const Tensor& a, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  const double pv = p.toDouble(), max_norm = maxnorm.toDouble();
  EMBER_CHECK(pv > 0, ValueError, "renorm: non-positive-norm not supported (got p = ", pv, ")");
  EMBER_CHECK(max_norm >= 0, ValueError, "renorm: expected maxnorm to be >= 0 but got ", max_norm);
  EMBER_CHECK(a.dim() > 1, ValueError, "renorm: input needs at least 2 dimensions, got ", a.dim(),
              " dimensions");
  if (is_16bit(a)) return renorm(a.to(kFloat), p, dim, maxnorm).to(a.dtype());
  const int64_t d = wrap_dim(dim, a.dim(), "renorm");
  DimVector others;
  for (int64_t i = 0; i < a.dim(); ++i) {
    if (i != d) others.push_back(i);
  }
  Tensor norms = std::isinf(pv) ? amax(abs(a), others, true)
                                : pow(sum(pow(abs(a), pv), others, true), 1.0 / pv);
  // PyTorch's factor: maxnorm / (norm + 1e-7) where the norm exceeds maxnorm.
  Tensor factor = where(norms.gt(max_norm), max_norm / (norms + 1e-7), Scalar(1.0));
  return a * factor;
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  EMBER_CHECK(x1.dim() >= 2, ValueError,
              "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  EMBER_CHECK(x2.dim() >= 2, ValueError,
              "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  EMBER_CHECK(x1.size(-1) == x2.size(-1), ValueError,
              "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
              " X2: ", x2.size(-1));
  EMBER_CHECK(x1.is_floating_point(), TypeError,
              "cdist only supports floating-point dtypes, X1 got: ", to_string(x1.dtype()));
  EMBER_CHECK(x2.is_floating_point(), TypeError,
              "cdist only supports floating-point dtypes, X2 got: ", to_string(x2.dtype()));
  EMBER_CHECK(p >= 0, ValueError, "cdist only supports non-negative p values");
  if (is_16bit(x1) && x1.dtype() == x2.dtype()) {
    return cdist(x1.to(kFloat), x2.to(kFloat), p, compute_mode).to(x1.dtype());
  }
  const int64_t mode = compute_mode.value_or(0);
  EMBER_CHECK(mode >= 0 && mode <= 2, ValueError, mode, " is not a valid value for compute_mode");
  const bool many_rows = x1.size(-2) > 25 || x2.size(-2) > 25;
  if (p == 2 && (mode == 1 || (mode == 0 && many_rows))) {
    // |a - b|^2 = |a|^2 - 2 a.b + |b|^2 through one matrix product: fast, and close to the
    // direct form only within rounding (PyTorch's _euclidean_dist clamps at 1e-30 alike).
    Tensor n1 = sum(x1 * x1, {-1}, true), n2 = sum(x2 * x2, {-1}, true);
    Tensor squared = n1 - 2 * matmul(x1, x2.transpose(-1, -2)) + n2.transpose(-1, -2);
    return clamp_min(squared, 1e-30).sqrt();
  }
  Tensor delta = abs(x1.unsqueeze(-2) - x2.unsqueeze(-3));  // [..., P, R, M]
  if (p == 0) return delta.ne(0).sum({-1}).to(x1.dtype());
  if (std::isinf(p)) return amax(delta, {-1});
  if (p == 1) return sum(delta, {-1});
  if (p == 2) return sqrt(sum(delta * delta, {-1}));
  return pow(sum(pow(delta, p), {-1}), 1.0 / p);
}

}  // namespace ember
