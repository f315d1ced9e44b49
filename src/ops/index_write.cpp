// The index ops that write into a copy of self (or into self, for the in-place forms):
// scatter_add, index_add and index_copy. Each checks its arguments as PyTorch does, runs the
// backend's kernel of the same name, and records a backward built from differentiable ops
// (gather, index_select, index_copy), so double backward works too.
#include <algorithm>

#include "autograd/record.h"
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"
#include "ops/elementwise.h"

namespace ember {

using autograd::variable_list;

namespace {

// `t` grown with zeros to `sizes` (t is no larger anywhere): scatter_add's src may be larger than
// its index, and the elements the index does not reach get no gradient.
Tensor zero_padded(const Tensor& t, IntArrayRef sizes) {
  if (t.sizes() == sizes) return t;
  Tensor z = zeros(sizes, t.options());
  Tensor region = z;
  for (int64_t d = 0; d < t.dim(); ++d) region = region.narrow(d, 0, t.size(d));
  region.copy_(t);
  return z;
}

// The index as an int64 vector (index_add and index_copy take a 0-dim or 1-D index).
Tensor index_vector(const Tensor& index, const char* op, bool int32_allowed) {
  EMBER_CHECK(index.dtype() == kLong || (int32_allowed && index.dtype() == kInt), TypeError, op,
              "(): Expected dtype ", int32_allowed ? "int32 or int64" : "int64", " for index, got ",
              python_name(index.dtype()));
  EMBER_CHECK(index.dim() <= 1, IndexError, op, "(): Index is supposed to be a vector, got ",
              index.dim(), "-D index of shape ", index.sizes());
  Tensor idx = index.reshape({index.numel()});
  return idx.dtype() == kLong ? idx : idx.to(kLong);
}

// index_add/index_copy: source has self's slices, one per index, along dim.
void check_slices(const Tensor& self, int64_t d, const Tensor& idx, const Tensor& source,
                  const char* op) {
  EMBER_CHECK(self.dtype() == source.dtype(), TypeError, op, "(): self (",
              python_name(self.dtype()), ") and source (", python_name(source.dtype()),
              ") must have the same dtype");
  check_same_device(self, idx, op);
  check_same_device(self, source, op);
  const int64_t n_source = source.dim() == 0 ? 1 : source.size(d);
  EMBER_CHECK(idx.numel() == n_source, IndexError, op, "(): Number of indices (", idx.numel(),
              ") should be equal to source.size(dim) (", n_source, "), dim ", d);
  bool same = source.dim() == self.dim() || (source.numel() == 1 && self.numel() == 1);
  for (int64_t k = 0; same && k < self.dim() && source.dim() > 0; ++k) {
    same = k == d || source.size(k) == self.size(k);
  }
  EMBER_CHECK(same, ValueError, op,
              "(): source tensor shape must match self tensor shape, excluding the specified "
              "dimension ",
              d, ". Got self.shape = ", self.sizes(), " source.shape = ", source.sizes());
}

// scatter_add: index, self and src of one rank; index no larger than src, nor than self outside
// dim. Index bounds are the backend's to check (the CPU before writing, CUDA in the kernel).
void check_scatter(const Tensor& self, int64_t d, const Tensor& index, const Tensor& src) {
  const char* op = "scatter_add";
  EMBER_CHECK(index.dtype() == kLong, TypeError, op, "(): Expected dtype int64 for index, got ",
              python_name(index.dtype()));
  EMBER_CHECK(self.dtype() == src.dtype(), TypeError, op,
              "(): Expected self.dtype to be equal to src.dtype, got ", python_name(self.dtype()),
              " and ", python_name(src.dtype()));
  check_same_device(self, index, op);
  check_same_device(self, src, op);
  EMBER_CHECK(index.dim() == self.dim() && index.dim() == src.dim(), IndexError, op,
              "(): Index tensor must have the same number of dimensions as self and src tensors "
              "(index ",
              index.sizes(), ", self ", self.sizes(), ", src ", src.sizes(), ")");
  for (int64_t k = 0; k < self.dim(); ++k) {
    EMBER_CHECK((k == d || index.size(k) <= self.size(k)) && index.size(k) <= src.size(k),
                ValueError, op, "(): Expected index ", index.sizes(), " to be smaller than self ",
                self.sizes(), " apart from dimension ", d, " and to be smaller size than src ",
                src.sizes());
  }
}

// In-place forms: the kernel writes self directly when nothing is recorded; otherwise the
// out-of-place op runs on a clone and its result (with its backward) is assigned to self.
template <typename Direct, typename OutOfPlace>
Tensor& write_inplace(const Tensor& t, const Tensor& other, const char* name, Direct direct,
                      OutOfPlace out_of_place) {
  Tensor& self = const_cast<Tensor&>(t);  // libtorch's in-place methods are const
  autograd::check_inplace_allowed(self, name);
  if (!autograd::needs_grad({self, other})) {
    direct(self);
    self.bump_version();
    return self;
  }
  return assign_inplace(self, out_of_place(self.clone()), name);
}

// Each *_into checks its arguments against `out` (self or its clone), runs the kernel on it and
// returns the wrapped dim.
int64_t scatter_add_into(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  if (out.dim() == 0 || index.dim() == 0 || src.dim() == 0) {
    // 0-dim operands act as one element along dim 0, as in PyTorch.
    EMBER_CHECK(out.numel() == 1 && index.numel() <= 1 && src.numel() >= 1, IndexError,
                "scatter_add(): a 0-dim operand takes 0-dim or one-element operands, got self ",
                out.sizes(), ", index ", index.sizes(), ", src ", src.sizes());
    wrap_dim(dim, 1, "scatter_add");
    scatter_add_into(out.reshape({1}), 0, index.reshape({index.numel()}),
                     src.reshape({src.numel()}));
    return 0;
  }
  const int64_t d = wrap_dim(dim, out.dim(), "scatter_add");
  check_scatter(out, d, index, src);
  if (index.numel() > 0) backend_for(out).scatter_add(out, d, index, src);
  return d;
}

struct IndexedSlices {
  int64_t dim;
  Tensor index;  // int64, 1-D
};

IndexedSlices index_add_into(const Tensor& out, int64_t dim, const Tensor& index,
                             const Tensor& source, const Scalar& alpha) {
  const int64_t d = wrap_dim(dim, std::max<int64_t>(out.dim(), 1), "index_add");
  Tensor idx = index_vector(index, "index_add", /*int32_allowed=*/true);
  check_slices(out, d, idx, source, "index_add");
  EMBER_CHECK(is_floating_point(out.dtype()) || !alpha.isFloatingPoint(), TypeError,
              "index_add(): for integral input tensors, argument alpha must not be a floating "
              "point number, got ",
              alpha.toDouble());
  if (source.numel() > 0) {
    Tensor scaled = alpha.toDouble() == 1.0 ? source : source.mul(alpha);
    backend_for(out).index_add(out, d, idx, out.dim() == 0 ? scaled.reshape({}) : scaled);
  }
  return {d, idx};
}

IndexedSlices index_copy_into(const Tensor& out, int64_t dim, const Tensor& index,
                              const Tensor& source) {
  const int64_t d = wrap_dim(dim, std::max<int64_t>(out.dim(), 1), "index_copy");
  Tensor idx = index_vector(index, "index_copy", /*int32_allowed=*/false);
  check_slices(out, d, idx, source, "index_copy");
  if (source.numel() > 0) {
    backend_for(out).index_copy(out, d, idx, out.dim() == 0 ? source.reshape({}) : source);
  }
  return {d, idx};
}

// g's slices at idx along d, shaped as the source they came from.
Tensor selected_slices(const Tensor& g, const IndexedSlices& s, IntArrayRef source_sizes) {
  return (g.dim() == 0 ? g.reshape({1}) : g).index_select(s.dim, s.index).reshape(source_sizes);
}

}  // namespace

// ---- scatter_add ----

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = self.clone();
  const int64_t d = scatter_add_into(out, dim, index, src);
  if (autograd::needs_grad({self, src})) {
    DimVector src_sizes(src.sizes());
    autograd::record("ScatterAddBackward0", out, {self, src}, [=](const variable_list& g) {
      return variable_list{g[0], zero_padded(gather(g[0], d, index), src_sizes)};
    });
  }
  return out;
}

Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter_add(*this, dim, index, src);
}

Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const {
  return write_inplace(
      *this, src, "scatter_add_", [&](const Tensor& t) { scatter_add_into(t, dim, index, src); },
      [&](const Tensor& t) { return ember::scatter_add(t, dim, index, src); });
}

// ---- index_add ----

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha) {
  Tensor out = self.clone();
  const IndexedSlices s = index_add_into(out, dim, index, source, alpha);
  if (autograd::needs_grad({self, source})) {
    DimVector source_sizes(source.sizes());
    const bool unit_alpha = alpha.toDouble() == 1.0;
    autograd::record("IndexAddBackward0", out, {self, source}, [=](const variable_list& g) {
      Tensor gs = selected_slices(g[0], s, source_sizes);
      return variable_list{g[0], unit_alpha ? gs : gs.mul(alpha)};
    });
  }
  return out;
}

Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source,
                         const Scalar& alpha) const {
  return ember::index_add(*this, dim, index, source, alpha);
}

Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                           const Scalar& alpha) const {
  return write_inplace(
      *this, source, "index_add_",
      [&](const Tensor& t) { index_add_into(t, dim, index, source, alpha); },
      [&](const Tensor& t) { return ember::index_add(t, dim, index, source, alpha); });
}

// ---- index_copy ----

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  Tensor out = self.clone();
  const IndexedSlices s = index_copy_into(out, dim, index, source);
  if (autograd::needs_grad({self, source})) {
    DimVector source_sizes(source.sizes());
    autograd::record("IndexCopyBackward0", out, {self, source}, [=](const variable_list& g) {
      // self's gradient is zero where source's slices replaced it.
      Tensor g_self = index_copy(g[0], s.dim, s.index, zeros(source_sizes, g[0].options()));
      return variable_list{g_self, selected_slices(g[0], s, source_sizes)};
    });
  }
  return out;
}

Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ember::index_copy(*this, dim, index, source);
}

Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const {
  return write_inplace(
      *this, source, "index_copy_",
      [&](const Tensor& t) { index_copy_into(t, dim, index, source); },
      [&](const Tensor& t) { return ember::index_copy(t, dim, index, source); });
}

// ---- t[i] with a 0-dim integer tensor (libtorch's operator[](Tensor)) ----

Tensor Tensor::operator[](const Tensor& index) const {
  EMBER_CHECK(index.defined(), IndexError, "Can only index with tensors that are defined");
  EMBER_CHECK(index.dim() == 0, IndexError,
              "Can only index with tensors that are scalars (zero-dim), got shape ", index.sizes());
  EMBER_CHECK(is_integral(index.dtype()), IndexError,
              "Can only index with integer scalar tensors, got dtype ", python_name(index.dtype()));
  return select(0, index.item<int64_t>());
}

}  // namespace ember
