// Searching and counting: searchsorted and bucketize (PyTorch's binary search run for every
// value at once with gather and where: no data-dependent shape), bincount and histc (index_add
// into bins; bincount reads its length, max + 1, on the host), and _unique2 /
// unique_consecutive, whose lengths depend on the values: they find the first element of each
// run with nonzero (src/ops/nonzero.cpp), which reads the count on the host on every backend.
// None is differentiable (as in PyTorch).
#include <algorithm>
#include <cmath>

#include "core/tensor_factory.h"
#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember {

namespace {

// true at each element that starts a run of equal elements of the 1-D `x` (the first always).
Tensor run_starts(const Tensor& x) {
  Tensor first =
      ones({std::min<int64_t>(x.size(0), 1)}, TensorOptions().dtype(kBool).device(x.device()));
  const int64_t n = x.size(0);
  if (n <= 1) return first;
  return cat({first, x.narrow(0, 1, n - 1).ne(x.narrow(0, 0, n - 1))}, 0);
}

// The same for slices along dim 0 of [n, rest]: a slice starts a run unless equal to the one
// before it everywhere.
Tensor slice_run_starts(const Tensor& x) {
  const int64_t n = x.size(0);
  Tensor first = ones({std::min<int64_t>(n, 1)}, TensorOptions().dtype(kBool).device(x.device()));
  if (n <= 1) return first;
  Tensor changed = x.narrow(0, 1, n - 1).ne(x.narrow(0, 0, n - 1)).sum({1}).gt(0);
  return cat({first, changed}, 0);
}

// (start positions, inverse, counts) of the runs marked by `starts` over n elements.
std::tuple<Tensor, Tensor, Tensor> runs(const Tensor& starts, bool want_inverse, bool want_counts) {
  const TensorOptions longs = TensorOptions().dtype(kLong).device(starts.device());
  Tensor positions = nonzero(starts).reshape({-1});
  Tensor inverse = want_inverse ? starts.cumsum(0) - 1 : empty({0}, longs);
  Tensor counts = empty({0}, longs);
  if (want_counts) {
    Tensor ends = cat({positions.narrow(0, std::min<int64_t>(1, positions.size(0)),
                                        std::max<int64_t>(positions.size(0) - 1, 0)),
                       full({1}, starts.size(0), longs)},
                      0);
    counts = positions.size(0) == 0 ? empty({0}, longs) : ends - positions;
  }
  return {positions, inverse, counts};
}

}  // namespace

// The insertion point of each value: the first boundary b with b >= v (left) or b > v (right).
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  if (side) {
    EMBER_CHECK(*side == "left" || *side == "right", ValueError,
                "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
    EMBER_CHECK(!(right && *side == "left"), ValueError,
                "torch.searchsorted(): side and right can't be set to opposites, got side of ",
                *side, " while right was True");
    right = *side == "right";
  }
  const Tensor& seq0 = sorted_sequence;
  EMBER_CHECK(seq0.dim() >= 1, ValueError,
              "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
              "dimension");
  bool leading_match = seq0.dim() == 1;
  if (!leading_match && self.dim() == seq0.dim()) {
    leading_match = IntArrayRef(seq0.sizes().data(), seq0.dim() - 1) ==
                    IntArrayRef(self.sizes().data(), self.dim() - 1);
  }
  EMBER_CHECK(leading_match, ValueError,
              "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
              "dimensions of boundaries tensor and input value tensor must match, but we got "
              "boundaries tensor ",
              seq0.sizes(), " and input value tensor ", self.sizes());
  check_same_device(seq0, self, "searchsorted");
  NoGradGuard no_grad;
  Tensor seq = seq0;
  if (sorter && sorter->defined()) {
    EMBER_CHECK(sorter->sizes() == seq0.sizes(), ValueError,
                "torch.searchsorted(): boundary and sorter must have the same size, but got "
                "boundary tensor ",
                seq0.sizes(), "and got sorter tensor ", sorter->sizes());
    EMBER_CHECK(sorter->dtype() == kLong, TypeError,
                "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype ",
                to_string(sorter->dtype()));
    seq = seq0.gather(-1, *sorter);
  }
  // PyTorch's binary search, run for every value at once: bit_length(M) halvings of [start, end),
  // each gathering the middle boundary. The same steps give the same answers as PyTorch's
  // kernel for any sequence, NaN boundaries and values included.
  const int64_t M = seq.size(-1);
  const TensorOptions longs = TensorOptions().dtype(kLong).device(self.device());
  Tensor start = zeros(self.sizes(), longs);
  Tensor end = full(self.sizes(), M, longs);
  for (int64_t span = M; span > 0; span >>= 1) {
    Tensor active = start.lt(end);
    Tensor mid = start + div(end - start, Scalar(2), "floor");
    Tensor at = clamp(mid, 0, M - 1);
    Tensor boundary = seq.dim() == 1 ? seq.index_select(0, at.reshape({-1})).reshape(at.sizes())
                                     : seq.gather(-1, at);
    Tensor go_right = right ? logical_not(boundary.gt(self)) : logical_not(boundary.ge(self));
    start = where(logical_and(active, go_right), mid + 1, start);
    end = where(logical_and(active, logical_not(go_right)), mid, end);
  }
  Tensor out = start;
  return out_int32 ? out.to(kInt) : out;
}

Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, ValueError,
              "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return searchsorted(boundaries, self, out_int32, right);
}

Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  EMBER_CHECK(is_integral(self.dtype(), false), TypeError, "\"bincount_cpu\" not implemented for '",
              to_string(self.dtype()), "'");
  EMBER_CHECK(self.dim() == 1, ValueError,
              "bincount only supports 1-d non-negative integral inputs. (got a ", self.dim(), "-d ",
              to_string(self.dtype()), " tensor)");
  EMBER_CHECK(minlength >= 0, ValueError, "minlength should be >= 0 (got ", minlength, ")");
  const bool weighted = weights && weights->defined();
  if (weighted) {
    EMBER_CHECK(weights->dim() == 1 && weights->size(0) == self.size(0), ValueError,
                "weights should be 1-d and have the same length as input (got ", weights->sizes(),
                " for an input of ", self.size(0), ")");
  }
  NoGradGuard no_grad;
  int64_t length = minlength;
  if (self.numel() > 0) {
    EMBER_CHECK(self.min().item<int64_t>() >= 0, ValueError,
                "bincount only supports 1-d non-negative integral inputs.");
    length = std::max(length, self.max().item<int64_t>() + 1);
  }
  // Float weights count in float, others in double, as PyTorch's CPU kernel.
  const ScalarType dt = !weighted ? kLong : weights->dtype() == kFloat ? kFloat : kDouble;
  Tensor bins = zeros({length}, TensorOptions().dtype(dt).device(self.device()));
  if (self.numel() == 0) return bins;
  Tensor added = weighted ? weights->to(dt) : ones({self.size(0)}, bins.options());
  return bins.index_add(0, self.to(kLong), added);
}

Tensor histc(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_CHECK(self.is_floating_point(), TypeError, "\"histogram_cpu\" not implemented for '",
              to_string(self.dtype()), "'");
  EMBER_CHECK(bins > 0, ValueError, "torch.histc(): bins must be > 0, but got ", bins, " for bins");
  NoGradGuard no_grad;
  double lo = min.toDouble(), hi = max.toDouble();
  if (lo == hi && self.numel() > 0) {
    lo = self.min().item<double>();
    hi = self.max().item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK(lo < hi, ValueError, "torch.histc(): max must be larger than min (got min ", lo,
              " and max ", hi, ")");
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), ValueError, "torch.histc(): range of [", lo,
              ", ", hi, "] is not finite");
  Tensor x = self.reshape({-1});
  // bin = floor((x - lo) * bins / (hi - lo)), the top edge in the last bin; what lies outside
  // (or is NaN) goes to an extra bin, dropped at the end.
  Tensor position = floor((x.to(kDouble) - lo) * (double(bins) / (hi - lo)));
  Tensor inside = logical_and(x.ge(lo), x.le(hi));
  Tensor bin = where(inside, clamp(position, 0, bins - 1), Scalar(double(bins))).to(kLong);
  Tensor counts = zeros({bins + 1}, self.options());
  counts = counts.index_add(0, bin, ones({x.size(0)}, self.options()));
  return counts.narrow(0, 0, bins).clone();
}

std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted, bool return_inverse,
                                            bool return_counts) {
  (void)sorted;  // always sorted: PyTorch's CPU result is sorted either way
  NoGradGuard no_grad;
  Tensor flat = self.reshape({-1});
  auto [values, perm] = sort(flat, std::optional<bool>(true), 0, false);
  auto [positions, sorted_inverse, counts] =
      runs(run_starts(values), return_inverse, return_counts);
  Tensor inverse = sorted_inverse;
  if (return_inverse) {
    // The group of sorted element i belongs to input element perm[i].
    inverse = zeros_like(sorted_inverse).index_copy(0, perm, sorted_inverse).reshape(self.sizes());
  }
  return {values.index_select(0, positions), inverse, counts};
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse,
                                                      bool return_counts,
                                                      std::optional<int64_t> dim) {
  NoGradGuard no_grad;
  if (!dim) {
    Tensor flat = self.reshape({-1});
    auto [positions, inverse, counts] = runs(run_starts(flat), return_inverse, return_counts);
    if (return_inverse) inverse = inverse.reshape(self.sizes());
    return {flat.index_select(0, positions), inverse, counts};
  }
  const int64_t d = wrap_dim(*dim, self.dim(), "unique_consecutive");
  Tensor slices = self.movedim(d, 0);
  slices = slices.reshape({slices.size(0), -1});
  auto [positions, inverse, counts] = runs(slice_run_starts(slices), return_inverse, return_counts);
  return {self.index_select(d, positions), inverse, counts};
}

}  // namespace ember
