// scatter (copy a src tensor or a value to the places an index names along a dim, or combine
// with "add" / "multiply") and scatter_reduce (sum, prod, mean, amax, amin; with or without
// self's values), composed from device-agnostic ops so that every backend runs them:
//   - the places written are coordinate tensors (the index along dim, each element's own
//     position along the other dims), so a plain scatter is an advanced-index write (index_put_);
//   - sum and mean accumulate with index_add;
//   - prod, amax and amin group the values by target (a stable sort of the linear positions)
//     and reduce each group with a segmented doubling scan: log2(n) rounds of elementwise ops.
// scatter's gradients come from index_put_'s rule; scatter_reduce records PyTorch 1.13's
// formulas (ScatterReduceBackward0), written with differentiable ops.
#include <algorithm>

#include "autograd/record.h"
#include "core/scalar_range.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"
#include "ops/elementwise.h"

namespace ember {

using autograd::SavedTensor;
using autograd::variable_list;

namespace {

enum class Reduce { Sum, Prod, Mean, Amax, Amin };

Reduce parse_reduce(std::string_view reduce) {
  if (reduce == "sum") return Reduce::Sum;
  if (reduce == "prod") return Reduce::Prod;
  if (reduce == "mean") return Reduce::Mean;
  if (reduce == "amax") return Reduce::Amax;
  if (reduce == "amin") return Reduce::Amin;
  EMBER_CHECK(false, ValueError,
              "reduce argument must be either sum, prod, mean, amax or amin. (got ", reduce, ")");
  return Reduce::Sum;
}

TensorOptions longs(const Tensor& like) {
  return TensorOptions().dtype(kLong).device(like.device());
}

// PyTorch's argument checks of scatter and scatter_reduce (src null for a value); the wrapped
// dim. Index values are checked here too: the composed writes would otherwise name other ops.
int64_t check_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                      const Tensor* src) {
  EMBER_CHECK(index.dtype() == kLong, TypeError, op, "(): Expected dtype int64 for index, got ",
              python_name(index.dtype()));
  check_same_device(self, index, op);
  if (src) {
    EMBER_CHECK(self.dtype() == src->dtype(), TypeError, op,
                "(): Expected self.dtype to be equal to src.dtype, got ", python_name(self.dtype()),
                " and ", python_name(src->dtype()));
    check_same_device(self, *src, op);
  }
  const int64_t d = wrap_dim(dim, self.dim(), op);
  EMBER_CHECK(index.dim() == self.dim(), ValueError, op,
              "(): Index tensor must have the same number of dimensions as self tensor (index ",
              index.sizes(), ", self ", self.sizes(), ")");
  EMBER_CHECK(!src || index.dim() == src->dim(), ValueError, op,
              "(): Index tensor must have the same number of dimensions as src tensor (index ",
              index.sizes(), ", src ", src->sizes(), ")");
  for (int64_t k = 0; k < self.dim(); ++k) {
    EMBER_CHECK(
        (k == d || index.size(k) <= self.size(k)) && (!src || index.size(k) <= src->size(k)),
        ValueError, op, "(): Expected index ", index.sizes(), " to be smaller than self ",
        self.sizes(), " apart from dimension ", d, src ? " and to be smaller size than src " : "",
        src ? src->sizes() : IntArrayRef{});
  }
  if (index.numel() > 0 && !index.is_meta()) {  // a meta index has no values to check
    const int64_t n = self.size(d);
    Tensor bad = index.lt(0).logical_or(index.ge(n));
    if (bad.any().item<bool>()) {
      EMBER_CHECK(false, ValueError, op, "(): index ", index.index({bad})[0].item<int64_t>(),
                  " is out of bounds for dimension ", d, " with size ", n);
    }
  }
  return d;
}

// Where each index element writes: one int64 tensor of index's shape per dim of self.
std::vector<std::optional<Tensor>> coordinates(const Tensor& index, int64_t d) {
  std::vector<std::optional<Tensor>> coords;
  for (int64_t k = 0; k < index.dim(); ++k) {
    if (k == d) {
      coords.emplace_back(index);
      continue;
    }
    std::vector<int64_t> shape(index.dim(), 1);
    shape[k] = index.size(k);
    coords.emplace_back(arange(index.size(k), longs(index)).view(shape).expand(index.sizes()));
  }
  return coords;
}

// The same places as positions in a contiguous tensor of `sizes`, flattened in index's order.
Tensor linear_positions(const Tensor& index, int64_t d, IntArrayRef sizes) {
  const DimVector strides = contiguous_strides(sizes);
  Tensor pos = zeros(index.sizes(), longs(index));
  const auto coords = coordinates(index, d);
  for (size_t k = 0; k < coords.size(); ++k) pos = pos.add(*coords[k], strides[k]);
  return pos.reshape({index.numel()});
}

// The part of src the index reaches (src may be larger than index in any dim).
Tensor reached(const Tensor& src, const Tensor& index) {
  Tensor out = src;
  for (int64_t k = 0; k < index.dim(); ++k) out = out.narrow(k, 0, index.size(k));
  return out;
}

// `t` grown with zeros to `sizes`: src's elements the index does not reach get no gradient.
Tensor zero_padded(const Tensor& t, IntArrayRef sizes) {
  if (t.sizes() == sizes) return t;
  Tensor out = t;
  for (int64_t k = 0; k < t.dim(); ++k) {
    if (out.size(k) == sizes[k]) continue;
    std::vector<int64_t> pad = out.sizes().vec();
    pad[k] = sizes[k] - out.size(k);
    out = cat({out, zeros(pad, out.options())}, k);
  }
  return out;
}

// scatter's 0-dim forms act on one-element vectors (as PyTorch treats 0-dim operands).
bool all_at_most_1d(const Tensor& self, const Tensor& index, const Tensor* src) {
  const bool small = self.dim() <= 1 && index.dim() <= 1 && (!src || src->dim() <= 1);
  return small && (self.dim() == 0 || index.dim() == 0 || (src && src->dim() == 0));
}
Tensor as_vector(const Tensor& t) {
  return t.reshape({t.numel()});
}

Tensor combine(Reduce r, const Tensor& a, const Tensor& b) {
  switch (r) {
    case Reduce::Prod:
      return a.mul(b);
    case Reduce::Amax:
      return maximum(a, b);
    case Reduce::Amin:
      return minimum(a, b);
    default:
      return a.add(b);
  }
}

// The reduction without autograd; `values` has index's shape.
Tensor scatter_reduce_values(const Tensor& self, int64_t d, const Tensor& index,
                             const Tensor& values, Reduce r, bool include_self) {
  if (self.is_meta()) return self.clone();  // the shape is self's; the runs need values
  const int64_t numel = self.numel();
  const Tensor flat_self = self.contiguous().reshape({numel});
  const Tensor targets = linear_positions(index, d, self.sizes());
  const Tensor vals = values.reshape({values.numel()});
  if (r == Reduce::Sum || r == Reduce::Mean) {
    Tensor sum = zeros({numel}, self.options()).index_add(0, targets, vals);
    Tensor count = zeros({numel}, longs(self)).index_add(0, targets, ones_like(targets));
    Tensor hit = count.gt(0);
    Tensor total = include_self ? flat_self.add(sum) : sum;
    if (r == Reduce::Mean) {
      Tensor n = (include_self ? count.add(1) : count).clamp(1, std::nullopt).to(self.dtype());
      total = is_floating_point(self.dtype()) ? total.div(n) : div(total, n, "floor");
    }
    return where(hit, total, flat_self).view(self.sizes());
  }
  // prod, amax, amin: sorted by target, each group is a run; after the round of `step`, each
  // element holds the reduction of the next 2 * step elements of its run (fewer at its end).
  auto [sorted_targets, order] = sort(targets, /*stable=*/true, 0, false);
  Tensor run = vals.index_select(0, order);
  const int64_t n = run.numel();
  for (int64_t step = 1; step < n; step *= 2) {
    Tensor same =
        sorted_targets.narrow(0, 0, n - step).eq(sorted_targets.narrow(0, step, n - step));
    Tensor head = run.narrow(0, 0, n - step);
    Tensor merged = where(same, combine(r, head, run.narrow(0, step, n - step)), head);
    run = cat({merged, run.narrow(0, n - step, step)});
  }
  // The first element of each run holds its run's reduction.
  Tensor first = cat({ones({1}, longs(self).dtype(kBool)),
                      sorted_targets.narrow(0, 1, n - 1).ne(sorted_targets.narrow(0, 0, n - 1))});
  Tensor places = sorted_targets.index({first});
  Tensor reduced = run.index({first});
  if (include_self) reduced = combine(r, flat_self.index_select(0, places), reduced);
  Tensor out = flat_self.clone();
  out.index_put_({std::optional<Tensor>(places)}, reduced);
  return out.view(self.sizes());
}

// PyTorch 1.13's scatter_reduce_backward (grad_src of index's shape).
variable_list scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t d,
                                      const Tensor& index, const Tensor& src, Reduce r,
                                      bool include_self, const Tensor& result) {
  Tensor grad_self, grad_src;
  switch (r) {
    case Reduce::Sum:
      grad_self = grad;
      grad_src = grad.gather(d, index);
      break;
    case Reduce::Mean: {
      Tensor n = include_self ? ones_like(grad) : zeros_like(grad);
      n = n.scatter_add(d, index, ones_like(src));
      n = n.masked_fill(n.eq(0), 1);
      grad_self = grad.div(n);
      grad_src = grad.gather(d, index).div(n.gather(d, index));
      break;
    }
    case Reduce::Amax:
    case Reduce::Amin: {
      Tensor value = result.gather(d, index);
      Tensor self_is_result = self.eq(result).to(self.dtype());
      Tensor src_is_result = src.eq(value).to(self.dtype());
      Tensor spread = grad.div(self_is_result.scatter_add(d, index, src_is_result));
      grad_self = self_is_result.mul(spread);
      grad_src = src_is_result.mul(spread.gather(d, index));
      break;
    }
    case Reduce::Prod: {
      // Zeros get the product of the others: self's zeros through a product with them set to 1;
      // a src zero alone at its place through a product with it set to 1.
      Tensor masked_self = self.masked_fill(self.eq(0), 1);
      Tensor masked_self_result = scatter_reduce(masked_self, d, index, src, "prod", include_self);
      grad_self = grad.mul(masked_self_result).div(masked_self);
      Tensor src_zero = src.eq(0);
      Tensor zeros_at = zeros_like(self).scatter_add(d, index, src_zero.to(self.dtype()));
      Tensor single_zero = src_zero.logical_and(zeros_at.gather(d, index).eq(1));
      Tensor masked_src_result =
          scatter_reduce(self, d, index, src.masked_fill(single_zero, 1), "prod", include_self);
      grad_src = where(single_zero, grad.mul(masked_src_result).gather(d, index),
                       grad.mul(result).gather(d, index).div(src.masked_fill(src_zero, 1)));
      break;
    }
  }
  if (!include_self) grad_self = scatter(grad_self, d, index, 0);
  return {grad_self, grad_src};
}

Tensor& inplace_result(const Tensor& t, const std::vector<Tensor>& inputs, const char* op,
                       const std::function<Tensor(const Tensor&)>& f) {
  Tensor& self = const_cast<Tensor&>(t);  // libtorch's in-place methods are const
  autograd::check_inplace_allowed(self, op);
  // Recorded ops save their inputs: they run on a copy so that writing self keeps them intact.
  return assign_inplace(self, f(autograd::needs_grad(inputs) ? self.clone() : self), op);
}

}  // namespace

// ---- scatter ----

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  if (all_at_most_1d(self, index, &src)) {
    wrap_dim(dim, 1, "scatter");
    return scatter(as_vector(self), 0, as_vector(index), as_vector(src)).view(self.sizes());
  }
  const int64_t d = check_scatter("scatter", self, dim, index, &src);
  Tensor out = self.clone();
  if (index.numel() > 0) out.index_put_(coordinates(index, d), reached(src, index));
  return out;
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  if (all_at_most_1d(self, index, nullptr)) {
    wrap_dim(dim, 1, "scatter");
    return scatter(as_vector(self), 0, as_vector(index), value).view(self.sizes());
  }
  const int64_t d = check_scatter("scatter", self, dim, index, nullptr);
  check_scalar_fits(value, self.dtype(), "scatter");
  Tensor out = self.clone();
  if (index.numel() > 0) out.index_put_(coordinates(index, d), full({}, value, self.options()));
  return out;
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               std::string_view reduce) {
  EMBER_CHECK(reduce == "add" || reduce == "multiply", ValueError,
              "reduce argument must be either add or multiply. (got ", reduce, ")");
  if (reduce == "add") return scatter_add(self, dim, index, src);
  return scatter_reduce(self, dim, index, src, "prod", true);
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
               std::string_view reduce) {
  check_scalar_fits(value, self.dtype(), "scatter");
  return scatter(self, dim, index, full(index.sizes(), value, self.options()), reduce);
}

Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::scatter(*this, dim, index, value);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src,
                       std::string_view reduce) const {
  return ember::scatter(*this, dim, index, src, reduce);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value,
                       std::string_view reduce) const {
  return ember::scatter(*this, dim, index, value, reduce);
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  return inplace_result(*this, {*this, src}, "scatter_",
                        [&](const Tensor& t) { return ember::scatter(t, dim, index, src); });
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  return inplace_result(*this, {*this}, "scatter_",
                        [&](const Tensor& t) { return ember::scatter(t, dim, index, value); });
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src,
                         std::string_view reduce) const {
  return inplace_result(*this, {*this, src}, "scatter_", [&](const Tensor& t) {
    return ember::scatter(t, dim, index, src, reduce);
  });
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value,
                         std::string_view reduce) const {
  return inplace_result(*this, {*this}, "scatter_", [&](const Tensor& t) {
    return ember::scatter(t, dim, index, value, reduce);
  });
}

// ---- scatter_reduce ----

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self) {
  const Reduce r = parse_reduce(reduce);
  if (all_at_most_1d(self, index, &src)) {
    wrap_dim(dim, 1, "scatter_reduce");
    return scatter_reduce(as_vector(self), 0, as_vector(index), as_vector(src), reduce,
                          include_self)
        .view(self.sizes());
  }
  const int64_t d = check_scatter("scatter_reduce", self, dim, index, &src);
  if (index.numel() == 0) return self.clone();
  Tensor out;
  {
    NoGradGuard no_grad;
    out = scatter_reduce_values(self, d, index, reached(src, index), r, include_self);
  }
  if (autograd::needs_grad({self, src})) {
    DimVector src_sizes(src.sizes());
    autograd::record("ScatterReduceBackward0", out, {self, src},
                     [=, s = SavedTensor(self), v = SavedTensor(src),
                      res = SavedTensor(out, true)](const variable_list& g) {
                       variable_list grads = scatter_reduce_backward(g[0], s.unpack(), d, index,
                                                                     reached(v.unpack(), index), r,
                                                                     include_self, res.unpack());
                       grads[1] = zero_padded(grads[1], src_sizes);
                       return grads;
                     });
  }
  return out;
}

Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                              std::string_view reduce, bool include_self) const {
  return ember::scatter_reduce(*this, dim, index, src, reduce, include_self);
}

Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                std::string_view reduce, bool include_self) const {
  return inplace_result(*this, {*this, src}, "scatter_reduce_", [&](const Tensor& t) {
    return ember::scatter_reduce(t, dim, index, src, reduce, include_self);
  });
}

}  // namespace ember
