// Tensor::index and Tensor::index_put_ (Python's x[...] and x[...] = v). A subscript is applied
// in two steps, as PyTorch does: integers, slices, None and Ellipsis make a view (select,
// slice, unsqueeze); the index tensors left (int64, and bool masks turned into int64 by nonzero)
// are then applied together by advanced indexing, which is written with existing ops: the
// indexed dims are moved to the front and flattened, the index tensors combined into one linear
// index, and index_select (reading) or the backends' index_copy/index_add (writing) do the rest.
// Gradients come from those ops' own rules, and from IndexPutBackward0 below for index_put_.
#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "autograd/record.h"
#include "core/backend.h"
#include "core/scalar_range.h"
#include "core/tensor_factory.h"
#include "ember/autograd.h"
#include "ember/ops.h"
#include "ops/elementwise.h"

namespace ember {

using autograd::variable_list;
using indexing::TensorIndex;

namespace {

// An index tensor of the advanced part: int64, on the view's device, indexing `dim` of the view;
// `real_dim` is the dim of the indexed tensor that error messages name.
struct AdvancedIndex {
  int64_t dim;
  int64_t real_dim;
  Tensor index;
};

struct Subscript {
  Tensor view;                          // after the basic indices; shares self's storage
  std::vector<AdvancedIndex> advanced;  // in increasing dim order
};

bool is_mask(const Tensor& t) {
  return t.dtype() == kBool || t.dtype() == kByte;
}

// The dims of the indexed tensor a subscript consumes (all but None, Ellipsis and bools).
int64_t count_specified_dims(ArrayRef<TensorIndex> indices) {
  int64_t count = 0;
  for (const TensorIndex& i : indices) {
    if (i.is_integer() || i.is_slice()) {
      ++count;
    } else if (i.is_tensor()) {
      count += is_mask(i.tensor()) ? i.tensor().dim() : 1;
    }
  }
  return count;
}

Tensor index_tensor_for(bool value, const Tensor& like) {
  // True adds a dim of size 1 indexed by [0]; False one indexed by nothing.
  return value ? zeros({1}, TensorOptions().dtype(kLong).device(like.device()))
               : empty({0}, TensorOptions().dtype(kLong).device(like.device()));
}

Subscript apply_basic(const Tensor& self, ArrayRef<TensorIndex> indices) {
  const int64_t specified = count_specified_dims(indices);
  EMBER_CHECK(specified <= self.dim(), IndexError, "too many indices for tensor of dimension ",
              self.dim());
  const auto ellipses = std::count_if(indices.begin(), indices.end(),
                                      [](const TensorIndex& i) { return i.is_ellipsis(); });
  EMBER_CHECK(ellipses <= 1, IndexError, "an index can only have a single ellipsis ('...')");
  Subscript s{self, {}};
  Tensor& v = s.view;
  int64_t dim = 0, real_dim = 0;  // in the view, and in self
  for (const TensorIndex& i : indices) {
    if (i.is_none()) {
      v = v.unsqueeze(dim++);
    } else if (i.is_ellipsis()) {
      dim += self.dim() - specified;
      real_dim += self.dim() - specified;
    } else if (i.is_integer() || (i.is_tensor() && i.tensor().dim() == 0 && !is_mask(i.tensor()) &&
                                  is_integral(i.tensor().dtype()))) {
      // A 0-dim integer tensor is read on the host, as libtorch does.
      const int64_t k = i.is_integer() ? i.integer() : i.tensor().item<int64_t>();
      const int64_t size = v.size(dim);
      EMBER_CHECK(k >= -size && k < size, IndexError, "index ", k,
                  " is out of bounds for dimension ", real_dim, " with size ", size);
      v = v.select(dim, k);
      ++real_dim;
    } else if (i.is_slice()) {
      const indexing::Slice& sl = i.slice();
      EMBER_CHECK(sl.step() > 0, ValueError, "step must be greater than zero");
      v = v.slice(dim++, sl.start(), sl.stop(), sl.step());
      ++real_dim;
    } else if (i.is_boolean() || (i.is_tensor() && i.tensor().dim() == 0)) {
      EMBER_CHECK(!i.is_tensor() || is_mask(i.tensor()), IndexError,
                  "tensors used as indices must be long, int, byte or bool tensors, got ",
                  python_name(i.tensor().dtype()));
      const bool b = i.is_boolean() ? i.boolean() : i.tensor().item<bool>();
      v = v.unsqueeze(dim);
      s.advanced.push_back({dim++, real_dim, index_tensor_for(b, v)});
    } else {
      const Tensor& t = i.tensor();
      EMBER_CHECK(t.defined(), IndexError, "an undefined tensor cannot be used as an index");
      if (is_mask(t)) {
        for (int64_t j = 0; j < t.dim(); ++j) {
          EMBER_CHECK(t.size(j) == v.size(dim + j), IndexError, "The shape of the mask ", t.sizes(),
                      " at index ", j, " does not match the shape of the indexed tensor ",
                      v.sizes(), " at index ", dim + j);
        }
        // A k-dim mask is k index tensors: the coordinates of its true elements.
        Tensor nz = nonzero(t.to(v.device()));
        for (int64_t j = 0; j < t.dim(); ++j) {
          s.advanced.push_back({dim + j, real_dim + j, nz.select(1, j)});
        }
        dim += t.dim();
        real_dim += t.dim();
      } else {
        EMBER_CHECK(t.dtype() == kLong || t.dtype() == kInt, IndexError,
                    "tensors used as indices must be long, int, byte or bool tensors, got ",
                    python_name(t.dtype()));
        s.advanced.push_back({dim++, real_dim++, t.to(v.device(), kLong)});
      }
    }
  }
  return s;
}

// `index` with negative entries counted from the end. On the CPU a bad entry throws naming it;
// on CUDA the lookup through index_select(arange(size)) is the bounds check (a device-side
// assert, as in PyTorch) and costs no host wait.
Tensor wrapped_index(const Tensor& index, int64_t size, int64_t real_dim) {
  // size is added to the negative entries only: index + size for every entry, which where()
  // then picked from, overflowed int64 for positive entries of a dim near INT64_MAX long.
  Tensor wrapped = index + index.lt(0).to(index.dtype()) * size;
  if (index.numel() == 0) return wrapped;
  if (index.is_cpu()) {
    const int64_t lo = index.min().item<int64_t>(), hi = index.max().item<int64_t>();
    const int64_t bad = lo < -size ? lo : hi;
    EMBER_CHECK(lo >= -size && hi < size, IndexError, "index ", bad,
                " is out of bounds for dimension ", real_dim, " with size ", size);
    return wrapped;
  }
  Tensor positions = arange(size, TensorOptions().dtype(kLong).device(index.device()));
  return positions.index_select(0, wrapped.reshape({-1})).view(index.sizes());
}

// The advanced part, laid out for one index_select / index_copy along dim 0.
struct AdvancedPlan {
  Tensor front;                       // the view with the indexed dims first (a permutation)
  std::vector<int64_t> flat_sizes;    // [prod(indexed sizes), the other dims...]
  Tensor linear;                      // int64 [numel(B)]: one index into flat dim 0 per result row
  std::vector<int64_t> result_sizes;  // the indexing result's shape, in PyTorch's order
  std::vector<int64_t> front_order;   // result_sizes permuted to [B..., other dims...]
  std::vector<int64_t> to_result;     // the permutation from [B..., others] to the result
};

AdvancedPlan plan_advanced(const Subscript& s) {
  const Tensor& v = s.view;
  std::vector<int64_t> b = s.advanced.front().index.sizes().vec();  // their broadcast shape
  for (size_t k = 1; k < s.advanced.size(); ++k) {
    try {
      b = broadcast_shapes(b, s.advanced[k].index.sizes());
    } catch (const Error&) {
      std::string all;
      for (const AdvancedIndex& x : s.advanced) {
        all += (all.empty() ? "" : ", ") + detail::str_cat(x.index.sizes());
      }
      throw IndexError(
          "shape mismatch: indexing tensors could not be broadcast together with shapes " + all);
    }
  }
  AdvancedPlan p;
  std::vector<int64_t> perm, others;
  std::vector<bool> indexed(static_cast<size_t>(v.dim()), false);
  int64_t n_indexed = 1;
  for (const AdvancedIndex& a : s.advanced) {
    perm.push_back(a.dim);
    indexed[static_cast<size_t>(a.dim)] = true;
    n_indexed *= v.size(a.dim);
  }
  for (int64_t d = 0; d < v.dim(); ++d) {
    if (!indexed[static_cast<size_t>(d)]) {
      perm.push_back(d);
      others.push_back(v.size(d));
    }
  }
  p.front = v.permute(perm);
  p.flat_sizes.push_back(n_indexed);
  p.flat_sizes.insert(p.flat_sizes.end(), others.begin(), others.end());
  // linear = sum_k index_k * (product of the indexed sizes after k), over the broadcast shape.
  Tensor linear;
  int64_t stride = n_indexed;
  for (const AdvancedIndex& a : s.advanced) {
    stride /= std::max<int64_t>(v.size(a.dim), 1);
    Tensor term = wrapped_index(a.index, v.size(a.dim), a.real_dim).expand(b) * stride;
    linear = linear.defined() ? linear + term : term;
  }
  p.linear = linear.reshape({-1});
  // PyTorch puts the broadcast dims where the indexed dims were when those are adjacent,
  // else first.
  const int64_t first = s.advanced.front().dim;
  bool adjacent = true;
  for (size_t k = 0; k < s.advanced.size(); ++k) {
    adjacent &= s.advanced[k].dim == first + static_cast<int64_t>(k);
  }
  const int64_t at = adjacent ? first : 0, nb = static_cast<int64_t>(b.size());
  p.front_order = b;
  p.front_order.insert(p.front_order.end(), others.begin(), others.end());
  for (int64_t d = 0; d < at; ++d) p.to_result.push_back(nb + d);
  for (int64_t d = 0; d < nb; ++d) p.to_result.push_back(d);
  for (int64_t d = at; d < static_cast<int64_t>(others.size()); ++d) p.to_result.push_back(nb + d);
  for (int64_t d : p.to_result) p.result_sizes.push_back(p.front_order[static_cast<size_t>(d)]);
  return p;
}

Tensor index_impl(const Tensor& self, ArrayRef<TensorIndex> indices) {
  Subscript s = apply_basic(self, indices);
  if (s.advanced.empty()) {
    // PyTorch returns a new view even for x[...] or x[()].
    return s.view.is_same(self) ? self.view(self.sizes()) : s.view;
  }
  AdvancedPlan p = plan_advanced(s);
  Tensor rows = p.front.reshape(p.flat_sizes).index_select(0, p.linear);
  return rows.reshape(p.front_order).permute(p.to_result);
}

// The inverse permutation of `perm`.
std::vector<int64_t> inverse(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = int64_t(i);
  return inv;
}

// self[indices] = values (or += with accumulate), written in place with no autograd.
void write_indexed(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& values,
                   bool accumulate) {
  NoGradGuard no_grad;
  Subscript s = apply_basic(self, indices);
  Tensor vals = values.to(self.device(), self.dtype());
  auto check_broadcast = [&](IntArrayRef to) {
    bool ok = vals.dim() <= static_cast<int64_t>(to.size());
    for (int64_t d = 0; ok && d < vals.dim(); ++d) {
      const int64_t t = to[to.size() - static_cast<size_t>(vals.dim()) + static_cast<size_t>(d)];
      ok = vals.size(d) == 1 || vals.size(d) == t;
    }
    EMBER_CHECK(ok, ValueError, "shape mismatch: value tensor of shape ", values.sizes(),
                " cannot be broadcast to indexing result of shape ", to);
  };
  if (s.advanced.empty()) {
    check_broadcast(s.view.sizes());
    if (accumulate) {
      s.view.add_(vals);
    } else {
      s.view.copy_(vals);
    }
    return;
  }
  AdvancedPlan p = plan_advanced(s);
  check_broadcast(p.result_sizes);
  // The values in the flat layout: one row per entry of the linear index.
  std::vector<int64_t> src_sizes = p.flat_sizes;
  src_sizes[0] = p.linear.numel();
  Tensor src = vals.expand(p.result_sizes).permute(inverse(p.to_result)).reshape(src_sizes);
  Tensor flat = p.front.reshape(p.flat_sizes);
  const bool aliases = flat.impl()->storage().get() == p.front.impl()->storage().get();
  Tensor target = aliases ? flat : flat.clone();
  Backend& be = backend_for(target);
  if (p.linear.numel() > 0) {
    if (accumulate) {
      be.index_add(target, 0, p.linear, src.contiguous());
    } else {
      be.index_copy(target, 0, p.linear, src.contiguous());
    }
  }
  if (!aliases) p.front.copy_(target.view(p.front.sizes()));
  self.bump_version();
}

Tensor& index_put_impl(const Tensor& self, std::vector<TensorIndex> indices, const Tensor& values,
                       bool accumulate, bool values_differentiable) {
  Tensor& out = const_cast<Tensor&>(self);
  autograd::check_inplace_allowed(self, "index_put_");
  const bool grad = autograd::GradMode::is_enabled() &&
                    (self.requires_grad() || (values_differentiable && values.requires_grad()));
  if (!grad) {
    write_indexed(self, indices, values, accumulate);
    return out;
  }
  // Computed on a copy with its own history, then moved into self as the other in-place ops do.
  Tensor result = self.detach().clone();
  write_indexed(result, indices, values, accumulate);
  std::vector<int64_t> value_sizes = values.sizes().vec();
  variable_list inputs{self, values_differentiable ? values : Tensor()};
  autograd::record("IndexPutBackward0", result, inputs,
                   [indices, value_sizes, accumulate](const variable_list& g) {
                     Tensor grad_self = g[0];
                     if (!accumulate) {  // overwritten elements do not reach the old self
                       grad_self = g[0].clone();
                       grad_self.index_put_(indices, 0);
                     }
                     Tensor grad_values = autograd::sum_to(g[0].index(indices), value_sizes);
                     return variable_list{grad_self, grad_values};
                   });
  return assign_inplace(out, result, "index_put_");
}

std::vector<TensorIndex> to_subscript(const std::vector<std::optional<Tensor>>& indices) {
  std::vector<TensorIndex> out;
  out.reserve(indices.size());
  for (const auto& i : indices) {
    if (i.has_value() && i->defined()) {
      out.emplace_back(*i);
    } else {
      out.emplace_back(indexing::Slice());
    }
  }
  return out;
}

}  // namespace

Tensor Tensor::index(ArrayRef<TensorIndex> indices) const {
  return index_impl(*this, indices);
}
Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index_impl(*this, ArrayRef<TensorIndex>(indices));
}
Tensor Tensor::index(const std::vector<std::optional<Tensor>>& indices) const {
  std::vector<TensorIndex> s = to_subscript(indices);
  return index_impl(*this, s);
}

Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Tensor& rhs) const {
  return index_put_impl(*this, indices.vec(), rhs, false, true);
}
Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Scalar& v) const {
  check_scalar_fits(v, dtype(), "index_put_");
  return index_put_impl(*this, indices.vec(), scalar_tensor(v, options()), false, false);
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& rhs) const {
  return index_put_(ArrayRef<TensorIndex>(indices), rhs);
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& v) const {
  return index_put_(ArrayRef<TensorIndex>(indices), v);
}
Tensor& Tensor::index_put_(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                           bool accumulate) const {
  return index_put_impl(*this, to_subscript(indices), values, accumulate, true);
}

}  // namespace ember
